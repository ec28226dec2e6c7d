"""The net behind the rules: the kernel ``tune`` is about to write, checked at sizes ``SHAPES`` does not name.

DESIGN.md, "Shapes": what tuning writes must stay correct at every size the original handled. The rules of
:mod:`kernelopt.tunables.guard` and :mod:`kernelopt.tunables.blocks` decide how a pick is written (plainly, guarded,
or not at all); each of their 29 fixes (docs/faults.md, v1-v29) was a form they misread first. This is the net under
them: before the write, the written kernel runs at a few sizes derived from the ``SHAPES`` entries the session ran
(:func:`derived_sizes`), each only where the original kernel (kernel.py as the user wrote it) passes there, with its
floating-point inputs and the outputs its ``run()`` allocates with ``torch.empty`` / ``torch.empty_like`` in the
middle of NaN (:mod:`kernelopt.harness.fences`: a read past an end reads NaN, a write past it is seen). A size the
original refuses (its assert, a reference that cannot build it, a wrong result of its own) is skipped, with its
reason; a size where the written kernel fails and the original passes keeps the pick from being written
(:func:`cast`; the original runs only where the written kernel fails).

The sizes, each integer key of the entries (above 1) moved together, a try with fewer keys moved when the original
refuses the first:

- **past**: one past the power of two at or above the largest entry (``100 -> 129``, ``60 -> 65``, ``512 -> 513``):
  above every entry and odd, so a multiple of no tile above 1 and past any one block a pick that passes the entries
  may cover. Its second try moves only the keys some entry gives an odd or twice-odd value (the others kept at
  their largest): a size a kernel's ``assert K % 16 == 0`` refuses still moves its rows.
- **half**: the largest entry plus half a power of two: first half the smallest tile the pick grows (``BLOCK`` 128 ->
  256 over entries of 4096 and 8192 columns: ``8320``), then half the largest power of two every entry is a multiple
  of (``256, 512 -> 640``; ``32, 64 -> 80``): a multiple of every tile up to that half, of no larger one; a key some
  entry gives an odd value stays at its largest.

Each size's last tries are its tries again with every key of at most :data:`SMALL_KEY` kept at its largest (an
activation code, a ``dim``, a stride: moved, the original refuses every try, and the size was skipped whole).

They run in the session's own primary bench worker (one request a kernel and size, untimed, never charged to the
budget; the size's inputs and reference built once there and kept for the next request), after the pick passed every
``SHAPES`` entry (:func:`kernelopt.tuning.folder.tune_folder`). Measured in docs/faults.md ("The net behind the
rules") and docs/tuning-engine.md.

torch is imported inside the worker's functions: importing this module does nothing.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.harness.fences import OUTPUT_FILL, Fences, fenced_outputs, padded, trespassed
from kernelopt.harness.hostmem import is_out_of_memory
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.checks import LoadedProblem, Verdict, check_run, first_line, load_candidate
from kernelopt.tuning.problem import ProblemShape


class SizeClass(StrEnum):
    """Which class of sizes a derived size stands for (see the module docstring)."""

    PAST = "past"
    HALF = "half"

    @property
    def words(self) -> str:
        return {
            SizeClass.PAST: "one past the power of two at or above the largest entry",
            SizeClass.HALF: "half a power of two past the largest entry",
        }[self]


class DerivedSize(BaseModel):
    """One size of the net: the shapes to try in order (the first the original passes at is the size checked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: SizeClass
    tries: tuple[ProblemShape, ...]


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _power_of_two_part(n: int) -> int:
    """The largest power of two dividing ``n`` (``n`` > 0)."""
    return n & -n


SMALL_KEY = 8
"""A key whose largest value over the entries is at most this may be a code rather than a size (an activation's 2,
a ``dim``, a stride, a group count): each size's last tries keep it at its largest (break11's x1)."""


def derived_sizes(shapes: Sequence[ProblemShape], grown: Sequence[int] = ()) -> list[DerivedSize]:
    """The net's sizes from the ``SHAPES`` entries a session ran (the primary first): see the module docstring.

    ``grown``: the values of the knobs the pick moves up (a tile of 256 over an original 128): the half size's first
    try steps by half the smallest one's power of two (the largest entry plus 128), a multiple of what the original's
    tile divides and of no tile the pick grew to, where the entries' own power of two (4096 and 8192) would step past
    a multiple of both. Only integer keys whose largest value over the entries is above 1 move (a 0/1 key reads as a
    flag or a mode); every other key and the constants stay the primary's. No entry, or no key to move: no size.
    """
    if not shapes:
        return []
    base = shapes[0]
    keys = [k for k, v in base.kwargs.items() if _int(v) is not None]
    values = {k: [_int(s.kwargs.get(k)) for s in shapes] for k in keys}
    sizes = {k: [v for v in vs if v is not None and v > 0] for k, vs in values.items()}
    moving = [k for k in keys if sizes[k] and max(sizes[k]) > 1]
    if not moving:
        return []
    largest = {k: max(sizes[k]) for k in moving}
    grain = {k: _power_of_two_part(math.gcd(*sizes[k])) for k in moving}
    tile = min((_power_of_two_part(v) for v in grown if v > 1), default=None)

    def shape(moved: Mapping[str, int]) -> ProblemShape:
        kwargs = {**base.kwargs, **{k: largest[k] for k in moving}, **moved}
        return ProblemShape(kwargs=kwargs, constants=dict(base.constants))

    def past(k: str) -> int:
        return (1 << (largest[k] - 1).bit_length()) | 1

    def half(k: str) -> int | None:
        step = min(grain[k], tile) if tile else None
        return largest[k] + step // 2 if step is not None and step >= 2 else None

    def tries(*moves: dict[str, int | None]) -> list[ProblemShape]:
        # the tries, then their fallbacks: the same moves with the small keys kept (a mode, a dim, a stride: an
        # original refuses them moved, and the size would be skipped whole; docs/faults.md x1)
        keeps = (lambda k: True, lambda k: largest[k] > SMALL_KEY)
        shapes = [shape({k: v for k, v in m.items() if v is not None and keep(k)}) for keep in keeps for m in moves]
        return [s for i, s in enumerate(shapes) if s != unmoved and s not in shapes[:i]]

    unmoved = shape({})
    past_tries = tries({k: past(k) for k in moving}, {k: past(k) for k in moving if grain[k] <= 2})
    half_tries = [
        h
        for h in tries({k: half(k) for k in moving}, {k: largest[k] + grain[k] // 2 for k in moving if grain[k] >= 2})
        if h not in past_tries
    ]
    out = [DerivedSize(kind=SizeClass.PAST, tries=tuple(past_tries))] if past_tries else []
    if half_tries:
        out.append(DerivedSize(kind=SizeClass.HALF, tries=tuple(half_tries)))
    return out


class SizeCheck(BaseModel):
    """What the net found at one derived size.

    Attributes:
        kind: the size's class.
        shape: the size checked (the try the original passed at), else the last one tried.
        passed: the written kernel passed there (``True``), failed where the original passed (``False``), or the
            size was skipped (``None``): the original did not pass at any try (``reason`` says why).
        outcome: the written kernel's outcome there (``None`` when skipped).
        reason: the failure's line, or why the size was skipped.
        seconds: wall seconds the size took (the original's runs included).
    """

    model_config = ConfigDict(extra="forbid")

    kind: SizeClass
    shape: ProblemShape
    passed: bool | None
    outcome: Outcome | None = None
    reason: str | None = None
    seconds: float = 0.0

    def label(self) -> str:
        return f"{self.shape.label()} ({self.kind.words})"


class NetVerdict(BaseModel):
    """The net's verdict on one written kernel (``not_cast``: why no size was checked)."""

    model_config = ConfigDict(extra="forbid")

    checks: list[SizeCheck] = Field(default_factory=list)
    not_cast: str | None = None
    seconds: float = 0.0

    @property
    def failed(self) -> SizeCheck | None:
        return next((c for c in self.checks if c.passed is False), None)

    def line(self) -> str:
        """One line for the user: where the written kernel was checked beyond the ``SHAPES`` entries, and how."""
        if self.not_cast is not None:
            return f"not checked at sizes the SHAPES entries do not name: {self.not_cast}"
        bad = self.failed
        if bad is not None:
            return f"the written kernel fails at {bad.label()}, where the original passes: {bad.outcome}: {bad.reason}"
        held = [c.shape.label() for c in self.checks if c.passed]
        skipped = [f"{c.shape.label()} ({c.reason})" for c in self.checks if c.passed is None]
        parts = []
        if held:
            parts.append(f"correct at {', '.join(held)}")
        if skipped:
            parts.append(f"skipped {'; '.join(skipped)}")
        return f"checked at sizes the SHAPES entries do not name ({self.seconds:.1f} s): {'; '.join(parts)}"


CheckAt = Callable[[str, ProblemShape], tuple[Outcome, str | None]]
"""A kernel source and a size -> its outcome there and the failure's line (the evaluator's
:meth:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator.check_at`)."""


def cast(
    sizes: Sequence[DerivedSize],
    original: str,
    written: str,
    check_at: CheckAt,
    *,
    known: dict[str, tuple[Outcome, str | None]] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> NetVerdict:
    """Check ``written`` at each of ``sizes`` where ``original`` passes; stop at its first failure.

    The written kernel runs first at each try: where it passes, the size is passed and the original is not run (half
    the runs, in the common case); where it fails, the original runs there: passing, the written kernel fails the
    net; failing too, the size is refused and the next try is taken. A written kernel that runs past the request's
    limit there gets no verdict at that size (a smaller tile can take many times the original's time in Triton's
    interpreter: a timeout there is the machine's load as often as the kernel's; or reference.py is slow building the
    size), and the size's other tries are not run: one limit a size at most (break11 x3). ``known``: the original's
    outcomes by size label, filled as they are found (a second pick checked after a first one failed runs the
    original at no size twice)."""
    memo = known if known is not None else {}
    started = clock()
    checks: list[SizeCheck] = []
    for size in sizes:
        t0 = clock()
        refusals: list[str] = []
        check: SizeCheck | None = None
        for shape in size.tries:
            outcome, reason = check_at(written, shape)
            if outcome is Outcome.OK:
                check = SizeCheck(kind=size.kind, shape=shape, passed=True, outcome=outcome)
                break
            label = shape.label()
            if outcome is Outcome.RUN_TIMEOUT:  # too slow to judge there (a small tile in the interpreter): no verdict
                # the size's other tries are as large in the other keys: one limit a size, not one a try (x3)
                refusals.append(
                    f"{label}: no reply within the limit (the written kernel, or reference.py building the size): "
                    f"{reason}"
                )
                break
            if label not in memo:
                memo[label] = check_at(original, shape)
            theirs, why = memo[label]
            if theirs is Outcome.OK:
                check = SizeCheck(kind=size.kind, shape=shape, passed=False, outcome=outcome, reason=reason)
                break
            refusals.append(f"{label}: the original fails there too: {theirs}: {why}")
        if check is None:
            check = SizeCheck(kind=size.kind, shape=size.tries[-1], passed=None, reason="; ".join(refusals))
        checks.append(check.model_copy(update={"seconds": clock() - t0}))
        if check.passed is False:
            break
    return NetVerdict(checks=checks, seconds=clock() - started)


# -- the worker's side ------------------------------------------------------------------------------


class SizeRequest(BaseModel):
    """Check one kernel file at one derived size, untimed (the bench service's ``size`` request)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    shape: ProblemShape


OUT_OF_BOUNDS = "it wrote past the end of an input or an output (into the fence around it)"


@dataclasses.dataclass
class DerivedProblems:
    """The bench worker's derived size: its inputs and reference built once (the last size asked), beside the
    session's problem, which is left as it is."""

    label: str | None = None
    problem: LoadedProblem | None = None
    raw: list[Any] = dataclasses.field(default_factory=list)
    refused: Verdict | None = None

    def check(self, loaded: LoadedProblem, path: Path, shape: ProblemShape) -> Verdict:
        """Run ``path`` at ``shape`` once, its inputs and ``torch.empty`` outputs in NaN, and check it as a candidate
        is checked (:func:`~kernelopt.tuning.checks.check_run`), a write into the NaN a wrong result."""
        self._build(loaded, shape)
        if self.refused is not None:
            return self.refused
        derived = self.problem
        assert derived is not None
        fences: Fences = []
        derived.inputs = [padded(t, fences) for t in self.raw]
        from kernelopt.harness.inplace import InputPrints

        derived.prints = InputPrints.of(derived.inputs)
        candidate, verdict = load_candidate(derived, path)
        if candidate is None:
            return verdict
        fn = candidate.fn

        def fenced(*args: Any) -> Any:
            with fenced_outputs(fences, OUTPUT_FILL):
                return fn(*args)

        try:
            verdict = check_run(derived, dataclasses.replace(candidate, fn=fenced), verdict)
        finally:
            candidate.release()
        if verdict.outcome is Outcome.OK and trespassed(fences):
            return dataclasses.replace(verdict, outcome=Outcome.WRONG_RESULT, reason=OUT_OF_BOUNDS)
        return verdict

    def _build(self, loaded: LoadedProblem, shape: ProblemShape) -> None:
        label = shape.label()
        if label == self.label:
            return
        self.release(loaded.device)
        self.label = label
        derived = dataclasses.replace(
            loaded, inputs=[], expected=None, prints=None, prepared=[], ref_model=None, contract=None, watch=None
        )
        try:
            derived.build(ProblemShape(kwargs=dict(shape.kwargs), constants=dict(loaded.shape.constants)))
        except (Exception, SystemExit) as exc:  # reference.py cannot build the size: the size is not the kernel's
            self.release(loaded.device)
            self.label = label
            kind = Outcome.OUT_OF_MEMORY if is_out_of_memory(exc) else Outcome.RUN_ERROR
            self.refused = Verdict(kind, f"reference.py cannot build it: {first_line(exc)}")
            return
        self.problem, self.raw = derived, list(derived.inputs)

    def release(self, device: str) -> None:
        """Drop the derived size's tensors (their references: no ``gc.collect``, which took 0.8 s a size in a worker
        holding torch and Triton, CPU, 2026-12-06; the caching allocator's blocks go back on a GPU)."""
        self.label, self.problem, self.raw, self.refused = None, None, [], None
        if device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
