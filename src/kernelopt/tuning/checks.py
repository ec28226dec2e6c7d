"""Worker side: the problem loaded in a worker, and one candidate run once and checked.

Shared by the bench service (:mod:`kernelopt.tuning.bench_worker`, the primary shape) and the compile
service (:mod:`kernelopt.tuning.compile_pool`, the compile shape). :class:`LoadedProblem` holds
reference.py imported once, its inputs built once (seed 0), their fingerprint (the in-place rule's
:class:`~kernelopt.harness.inplace.InputPrints`: no copy of the inputs kept) and the reference's output in its
own dtype. :func:`run_candidate` loads a candidate file, runs it once on those inputs and checks it: the load
(``COMPILE_ERROR``), the call (``COMPILE_ERROR`` for a Triton compilation failure, ``OUT_OF_MEMORY``,
``RUN_ERROR``), the inputs (the gate's in-place rule, :mod:`kernelopt.harness.inplace`), and the outputs
against the reference (:func:`kernelopt.harness.compare.check_outputs`, in chunks, so a 1 GB output never gets
a float64 copy). A failure is a :class:`Verdict`, never an exception.

torch is imported inside the functions: importing this module does nothing.
"""

from __future__ import annotations

import gc
import inspect
import os
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kernelopt.harness.chunks import CHUNK_MIN_ELEMS, chunk_for
from kernelopt.harness.first_call import first_call_line, watch_benchmarks
from kernelopt.harness.hints import FIRST_CALL_ONLY
from kernelopt.harness.hostmem import host_available_bytes, is_out_of_memory
from kernelopt.harness.interpreter import exception_chain, is_static_assert
from kernelopt.harness.loader import check_shapes
from kernelopt.harness.tolerance import EPS, reference_tolerance
from kernelopt.kernelsource import KernelForm
from kernelopt.oneline import first_line as oneline_first
from kernelopt.tunables.list_model import ListScreen
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.list_screen import ScreenedConfig, screen_loaded, watch_prune
from kernelopt.tuning.problem import MemoryNeed, Problem, ProblemShape
from kernelopt.worker.loader import load_module, unload

if TYPE_CHECKING:
    from kernelopt.harness.branches import OwnCode
    from kernelopt.harness.compare import OutputCheck
    from kernelopt.harness.inplace import InPlaceContract, InputPrints

STICKY_CUDA_ERRORS = (
    "illegal memory access",
    "device-side assert",
    "unspecified launch failure",
    "misaligned address",
    "illegal instruction",
)
"""Words of a CUDA error after which the process's context is unusable: the worker must start again."""


@dataclass
class Verdict:
    """How one run of a candidate ended.

    Attributes:
        outcome: ``OK`` or why not.
        reason: one line for a failure.
        error_class: the check's name of a wrong result (:mod:`kernelopt.harness.compare`'s ``WrongDevice``,
            ``Mismatch``, ...; the in-place rule's), which decides the hints it may carry
            (:func:`kernelopt.harness.hints.failure_class`); ``None`` otherwise.
        restart: the process is unusable after it (a sticky CUDA error): its worker must start again.
        load_s: seconds importing the candidate file.
        first_call_s: seconds of its first call (compilation included).
        check_s: seconds of the checks after the call.
        rel_err, worst_ratio: a passing check's errors (:class:`~kernelopt.harness.compare.OutputCheck`'s), which the
            parent compares with the original's at the same entry (:mod:`kernelopt.tuning.accuracy`); ``None``: not
            measured (no floating-point output, or the check failed).
        roundoff: the unit roundoff of the checked output's precision (:data:`kernelopt.harness.tolerance.EPS` of the
            first output's class: 2**-10 for fp16), below which :mod:`kernelopt.tuning.accuracy` compares no errors.
    """

    outcome: Outcome
    reason: str | None = None
    error_class: str | None = None
    restart: bool = False
    load_s: float | None = None
    first_call_s: float | None = None
    check_s: float | None = None
    rel_err: float | None = None
    worst_ratio: float | None = None
    roundoff: float | None = None


def first_line(exc: BaseException, path: Path | None = None) -> str:
    """``TypeName: first line`` of an exception, with ``(kernel.py:12)`` when its traceback passes ``path``: the
    innermost line of ``path`` an exception of its chain passed (a kernel's line under Triton's interpreter, not
    the launch's)."""
    text = oneline_first(str(exc), 300)
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if path is not None:
        where = [
            f for e in exception_chain(exc) for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path
        ]
        if where:
            line += f" ({path.name}:{where[-1].lineno})"
        elif isinstance(exc, SyntaxError) and exc.lineno is not None:
            line += f" ({path.name}:{exc.lineno})"
    return line


def is_compile_error(exc: BaseException) -> bool:
    """A Triton compilation failure: an exception of Triton's compiler (CompilationError, OutOfResources for
    shared memory or registers, ptxas) or one raised from inside it."""
    for cls in type(exc).__mro__:
        if cls.__module__.startswith(("triton.compiler", "triton.backends")) or cls.__name__ == "OutOfResources":
            return True
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and any(part in frames[-1].filename for part in ("/triton/compiler/", "/triton/backends/"))


def classify(exc: BaseException, path: Path | None, what: str) -> Verdict:
    """The verdict of an exception a candidate raised while ``what`` (``running``, ``timing``).

    A configuration the kernel's author declared invalid is ``INVALID`` (set aside untimed, not charged: docs/
    tuning-engine.md "What is never timed costs nothing"): one its autotune list's ``early_config_prune`` drops
    (:class:`~kernelopt.tuning.list_screen.ScreenedConfig`), one that fails the kernel's own ``tl.static_assert``.
    """
    line = first_line(exc, path)
    screened = next((e for e in exception_chain(exc) if isinstance(e, ScreenedConfig)), None)
    if screened is not None:
        return Verdict(Outcome.INVALID, screened.reason)
    if is_static_assert(exc):
        return Verdict(
            Outcome.INVALID,
            f"it fails the kernel's own tl.static_assert: {line}; a GPU compile refuses it "
            "(CompileTimeAssertionFailure, which Triton's autotuner skips)",
        )
    if is_out_of_memory(exc):
        return Verdict(Outcome.OUT_OF_MEMORY, f"out of memory while {what}: {line}")
    if is_compile_error(exc):
        return Verdict(Outcome.COMPILE_ERROR, f"compiling failed: {line}")
    sticky = any(word in str(exc) for word in STICKY_CUDA_ERRORS)
    return Verdict(Outcome.RUN_ERROR, f"raised while {what}: {line}", restart=sticky)


def synchronize(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _accepts_device(fn: Callable[..., Any]) -> bool:
    try:
        return "device" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


UserCodeWatch = Callable[[str | None], None]
"""Told where the user's code runs now (``"reference.py's get_inputs()"``), ``None`` once it returned."""


@contextmanager
def _running(watch: UserCodeWatch | None, where: str) -> Iterator[None]:
    """Tell ``watch`` (when there is one) that the user's code runs at ``where`` for the block, and that it
    returned after it (also when it raised: an exception is reported by the caller, with its own words)."""
    if watch is None:
        yield
        return
    watch(where)
    try:
        yield
    finally:
        watch(None)


@dataclass
class LoadedProblem:
    """reference.py imported in a worker, with one shape's inputs and reference output built once.

    Attributes:
        problem: the problem.
        device: the torch device (``cuda:0``, ``cpu``).
        shape: the shape the inputs were built for.
        reference: the imported reference.py.
        form: function or KernelBench form.
        shapes: reference.py's ``SHAPES`` (``[]`` when absent).
        inputs: the inputs (seed 0) on ``device``.
        expected: the reference's output on them, in its own dtype.
        prints: the inputs' fingerprint (:class:`~kernelopt.harness.inplace.InputPrints`), taken after each build.
        contract: what the reference does to its inputs (:class:`~kernelopt.harness.inplace.InPlaceContract`).
        init_inputs: ``get_init_inputs()`` of the KernelBench form (``[]`` otherwise).
        ref_model: the reference Model instance (KernelBench form).
        prepared: what the value checks need of ``expected``, read once
            (:func:`kernelopt.harness.compare.prepare_reference`).
        chunk_elems: elements per step of the output comparison (:func:`chunk_for` of the outputs).
        high_skipped: why the reference's float64 run for its integer outputs was not made (it could not fit on
            the device beside the problem: :func:`kernelopt.harness.footprint.place_check`, the gate's rule), else
            ``None``.
        device_line: the line saying the reference returns an output on a device type other than its inputs'
            (:func:`kernelopt.harness.compare.reference_device_line`), else ``None``.
        screen: the tuned autotune list's own filters, applied to each candidate loaded
            (:mod:`kernelopt.tuning.list_screen`); ``None``: none.
        gate_high: the reference's float64 outputs and what the checks read of them beside its own run
            (:meth:`gate_pair`), made the first time a candidate fails on its values; ``False``: that run could not
            be made.
    """

    problem: Problem
    device: str
    shape: ProblemShape
    reference: ModuleType
    form: KernelForm
    shapes: list[dict[str, Any]]
    inputs: list[Any] = field(default_factory=list)
    expected: Any = None
    prints: InputPrints | None = None
    init_inputs: list[Any] = field(default_factory=list)
    ref_model: Any = None
    prepared: list[Any] = field(default_factory=list)
    chunk_elems: int = CHUNK_MIN_ELEMS
    watch: UserCodeWatch | None = None
    contract: InPlaceContract | None = None
    high_skipped: str | None = None
    device_line: str | None = None
    screen: ListScreen | None = None
    gate_high: Any = None

    @classmethod
    def load(cls, problem: Problem, device: str, *, watch: UserCodeWatch | None = None) -> LoadedProblem:
        """Import reference.py (its folder and the kernel's importable); no tensor is built yet.

        ``watch`` is told where the user's code runs (``"reference.py's get_inputs()"``) before each call into
        it and ``None`` after (a worker sends it to its parent: a process that dies in between died there).
        """
        import sys

        folder = str(Path(problem.kernel_py).parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        with _running(watch, "reference.py (its import)"):
            reference = load_module(Path(problem.reference_py))
        form = KernelForm.KERNELBENCH if hasattr(reference, "Model") else KernelForm.FUNCTION
        check_shapes(reference)  # a computed SHAPES that names no case (a literal one the parent refused)
        raw = getattr(reference, "SHAPES", None) or []
        shapes = [dict(s) for s in raw if isinstance(s, dict)]
        empty = ProblemShape()
        return cls(
            problem=problem, device=device, shape=empty, reference=reference, form=form, shapes=shapes, watch=watch
        )

    def _use(self, shape: ProblemShape) -> None:
        if shape.constants != self.shape.constants:
            # problem sizes (checked against the file by the parent) are substituted as reference.py runs
            # again, so that what it derives from them (bias_shape = (out_channels, 1, 1)) follows
            old = self.reference
            with _running(self.watch, "reference.py (its import)"):
                self.reference = load_module(Path(self.problem.reference_py), overrides=shape.constants)
            unload(old)
        self.shape = shape

    def make_inputs(self, device: str) -> list[Any]:
        """``get_inputs(**shape)`` under seed 0, built on ``device`` (a KernelBench model is built beside them)."""
        from kernelopt.harness.inputs import make_inputs, meta_reference

        with _running(self.watch, "reference.py's get_inputs()"):
            return make_inputs(
                self.reference.get_inputs, dict(self.shape.kwargs), device, 0, reference=meta_reference(self.reference)
            )

    def reference_callable(self, device: str) -> Callable[..., Any]:
        """The ground truth: a ``Model`` instance (seed 0, in its built mode) on ``device``, or ``reference()``."""
        import torch

        if self.form is KernelForm.FUNCTION:
            return self.reference.reference
        fn = getattr(self.reference, "get_init_inputs", None)
        with _running(self.watch, "reference.py's get_init_inputs()"):
            self.init_inputs = list(fn()) if fn else []
        torch.manual_seed(0)
        with _running(self.watch, "reference.py's Model()"):
            model = self.reference.Model(*self.init_inputs)
        return model.to(device) if hasattr(model, "to") else model  # in its built mode, as the gate's (b42)

    def build(self, shape: ProblemShape) -> MemoryNeed:
        """Build the inputs, their fingerprint and the reference output of ``shape`` on the device.

        A reference that modifies its inputs gets them built again afterwards (the candidates see fresh ones).
        Exceptions of reference.py propagate (the service turns them into its setup failure).
        """
        import torch

        from kernelopt.harness.draws import drew, generator_states
        from kernelopt.harness.inplace import InPlaceContract, InputPrints, modified_inputs
        from kernelopt.harness.inputs import nbytes

        self._use(shape)
        self.gate_high = None
        self.inputs = self.make_inputs(self.device)
        self.prints = InputPrints.of(self.inputs)
        with torch.set_grad_enabled(self.form.takes_gradients):
            ref = self.reference_callable(self.device)
            self.ref_model = ref if self.form is KernelForm.KERNELBENCH else None
            where = "reference.py's reference()" if self.form is KernelForm.FUNCTION else "reference.py's Model"
            with _running(self.watch, where):
                before = generator_states(self.device)
                self.expected = ref(*self.inputs)
                synchronize(self.device)
                random = drew(before, generator_states(self.device))
        from kernelopt.harness.compare import ReferenceIncomparable, incomparable_reference_line, reference_device_line

        if (incomparable := incomparable_reference_line(self.expected)) is not None:
            raise ReferenceIncomparable(f"{where}: {incomparable}")  # nothing to check a candidate against (v191)
        self.expected = _own_memory(self.expected)
        self.device_line = reference_device_line(self.expected, self.inputs)  # a meta output: the setup's refusal
        from kernelopt.harness.inputs import ReferenceNotWritten

        with _running(self.watch, f"{where} in float64"):
            unwritten = self._unwritten_line(ref)  # memory it never wrote: no candidate is checked (b46)
        if unwritten is not None:
            raise ReferenceNotWritten(f"{where}: {unwritten}")
        self.contract = InPlaceContract(returns_nothing=self.expected is None)
        if self.prints.changed(self.inputs):  # an op in place: candidates must leave what it leaves
            modified = self.inputs
            self.restore_inputs()
            self.contract.left = modified_inputs(self.inputs, modified)  # the inputs are built again as they were
        if random:  # candidates run from any random state: a reference whose output depends on it checks none
            self._refuse_if_random(ref, where)
        from kernelopt.harness.compare import prepare_pair, prepare_reference
        from kernelopt.harness.inputs import tensors_in

        self.chunk_elems = chunk_for(sum(t.numel() for t in tensors_in(self.expected)))
        with _running(self.watch, f"{where} in float64"):  # a setup past its limit there is the reference's
            hi = self._integer_outputs_high(ref)
        if hi is not None:  # an integer output of a float computation: within the reference's own rounding
            self.prepared = prepare_pair(
                self.expected, hi, dtype_hint=self.problem.dtype_hint, atol=self.atol, rtol=self.rtol
            )
        else:
            self.prepared = prepare_reference(
                self.expected,
                dtype_hint=self.problem.dtype_hint,
                atol=self.atol,
                rtol=self.rtol,
                chunk_elems=self.chunk_elems,
            )
        return MemoryNeed(inputs_bytes=nbytes(self.inputs) + parameter_bytes(ref), outputs_bytes=nbytes(self.expected))

    def _refuse_if_random(self, ref: Callable[..., Any], where: str) -> None:
        """Raise :class:`~kernelopt.harness.draws.ReferenceNondeterministic` (the setup's refusal, naming reference.py)
        when the reference's output changes with the random state beyond the tolerance
        (:func:`~kernelopt.harness.draws.state_dependence`, the gate's rule)."""
        import torch

        from kernelopt.harness.draws import ReferenceNondeterministic, state_dependence
        from kernelopt.harness.inputs import clone_tree

        with torch.set_grad_enabled(self.form.takes_gradients), _running(self.watch, where):
            line = state_dependence(
                lambda: ref(*clone_tree(self.inputs)),
                self.expected,
                dtype_hint=self.problem.dtype_hint,
                atol=self.atol,
                rtol=self.rtol,
                what=where,
            )
        if line is not None:
            raise ReferenceNondeterministic(line)

    def _unwritten_line(self, ref: Callable[..., Any]) -> str | None:
        """The gate's rule of memory the reference never wrote (``inputs.unwritten_reference_line``), read as the
        gate reads it: a bf16 output's poison pattern is also its largest value (``torch.nan_to_num``), and an
        integer output's a value like any other. Where the own run's line names a bf16 output, the reference's float64
        run is made where it fits and the rule given it, as the gate's check gives it its own (review21 r17; late22
        z13: ``tune`` refused such a reference though the gate passed it); where that run does not fit, and for an
        integer output holding the pattern as often as chance, the rule reads the reference run once more, its fresh
        memory another byte (``inputs.other_fill``), as the gate's check does (verdicts22 x5, x6: a bf16 reference
        at ``finfo.max`` whose float64 run did not fit was refused)."""
        import torch

        from kernelopt.harness.inputs import clone_tree, other_fill, tensors_in, unwritten_reference_line

        def rerun() -> Any:
            with other_fill(self.device, tensors_in(self.expected)), torch.no_grad():
                return ref(*clone_tree(self.inputs))

        high = None
        if any(t.dtype == torch.bfloat16 for t in tensors_in(self.expected)) and unwritten_reference_line(
            self.expected
        ):
            high, _ = self._placed_high(ref)
        return unwritten_reference_line(self.expected, high.outputs if high is not None else None, rerun)

    def gate_pair(self) -> tuple[Any, list[Any]] | None:
        """The reference's float64 outputs and what the value checks read of them beside its own run
        (:func:`~kernelopt.harness.compare.prepare_pair`), made once per shape, where it fits: the gate's reading,
        which takes the reference's own rounding from them. Held to the own run alone, at the default tolerance, a
        correct candidate rounding otherwise failed where the gate passes it: an output whose reference varies less
        than its rounding read as the all-zeros cheat (a group norm of one channel a group, b55), a split-K matmul
        before a sharp softmax and a batched inverse by QR "beyond tolerance" at the code net's sizes (break22 b56).
        ``None``: not made."""
        if self.gate_high is None:
            import torch

            from kernelopt.harness import highrun
            from kernelopt.harness.branches import LineTrace, OwnCode, other_lines
            from kernelopt.harness.compare import prepare_pair
            from kernelopt.harness.inputs import clone_tree

            ref = self.ref_model if self.ref_model is not None else self.reference_callable(self.device)
            own = OwnCode(getattr(self.reference, "__file__", None))
            with _running(self.watch, "reference.py's reference in float64"):
                with LineTrace(own) as native, torch.set_grad_enabled(self.form.takes_gradients):
                    ref(*clone_tree(self.inputs))  # the lines its own dtype runs, to tell a branch on the dtype
                high, _ = self._placed_high(ref, own)
            self.gate_high = False
            # a run that took another path (a branch on the dtype) computes something else: no reading of the
            # reference's rounding, the own run stays the truth (the gate's rule, worker._high_took_the_same_path)
            if high is not None and not other_lines(native.lines, high.lines):
                # an overflow inside the reference is no rounding to widen by: the gate's reading of it (x8), or a
                # candidate 10 % off passed here where the gate fails it (review22 r22)
                reading = None
                if self.atol is None and self.rtol is None:
                    with (
                        _running(self.watch, "reference.py's reference rounded as its dtype"),
                        torch.set_grad_enabled(self.form.takes_gradients),
                    ):
                        reading = highrun.rounded_reading(
                            ref,
                            self.inputs,
                            {},
                            self.expected,
                            high.outputs,
                            dtype_hint=self.problem.dtype_hint,
                            lines=native.lines,
                            own=own,
                        )
                prepared = (
                    reading[0]
                    if reading is not None
                    else prepare_pair(
                        self.expected, high.outputs, dtype_hint=self.problem.dtype_hint, atol=self.atol, rtol=self.rtol
                    )
                )
                self.gate_high = (high.outputs, prepared)
        return self.gate_high or None

    def _placed_high(self, ref: Callable[..., Any], own: OwnCode | None = None) -> tuple[Any, str | None]:
        """The reference's run in float64 (:func:`kernelopt.harness.highrun.run_high`, the gate's run) where it fits
        on the device beside the problem (:func:`kernelopt.harness.footprint.place_check`), and ``None`` otherwise
        (or where it runs in neither float64 nor float32), with why it did not fit."""
        import torch

        from kernelopt.harness import highrun
        from kernelopt.harness.footprint import place_check

        fp = highrun.check_footprint(highrun.device_free_bytes(self.device), self.inputs, self.expected, None)
        place = place_check(fp)
        if not place.high:
            return None, place.high_skipped
        with torch.set_grad_enabled(self.form.takes_gradients):
            return highrun.run_high(ref, self.inputs, {}, own=own), None  # a module's float64 copy: this run only

    def _integer_outputs_high(self, ref: Callable[..., Any]) -> Any:
        """The reference's outputs with each integer one (a quantizer's int8, not a bool) taken from its run in
        float64 (:func:`kernelopt.harness.highrun.run_high`, the gate's run), the others as computed: the gate's
        rule of one step at a rounding tie (:func:`kernelopt.harness.compare.check_outputs`). ``None`` when no
        output is an integer tensor, no input is floating, the run does not fit on the device beside the problem
        (:attr:`high_skipped` says why), or it raises or returns another structure."""
        import torch

        from kernelopt.harness.compare import as_outputs, is_integer_output

        self.high_skipped = None
        outs = as_outputs(self.expected)
        integer = [is_integer_output(t) for t in outs]
        if not any(integer) or not any(isinstance(t, torch.Tensor) and t.is_floating_point() for t in self.inputs):
            return None
        high, skipped = self._placed_high(ref)
        if skipped is not None:
            self.high_skipped = (
                f"{skipped}: its integer outputs are compared exactly with the reference in its own dtype"
            )
            return None
        if high is None:  # the reference runs in neither float64 nor float32: compared as computed
            return None
        his = as_outputs(high.outputs)
        if len(his) != len(outs):
            return None
        return tuple(
            h if keep and isinstance(h, torch.Tensor) and tuple(h.shape) == tuple(o.shape) else o
            for o, h, keep in zip(outs, his, integer, strict=True)
        )

    @property
    def atol(self) -> float | None:
        """The problem's ATOL, else reference.py's, else ``None`` (the dtype-aware default)."""
        return self.problem.atol if self.problem.atol is not None else reference_tolerance(self.reference)[0]

    @property
    def rtol(self) -> float | None:
        """The problem's RTOL, else reference.py's, else ``None``."""
        return self.problem.rtol if self.problem.rtol is not None else reference_tolerance(self.reference)[1]

    def restore_inputs(self) -> None:
        """Build the inputs again (seed 0) after something modified them."""
        self.inputs = []
        gc.collect()
        from kernelopt.harness.inplace import InputPrints

        self.inputs = self.make_inputs(self.device)
        self.prints = InputPrints.of(self.inputs)

    def candidate_callable(self, module: ModuleType) -> Callable[..., Any]:
        """``module.run``, or its ``ModelNew`` (same init inputs and seed; the reference's weights when the
        parameters match) on the device."""
        import torch

        if self.form is KernelForm.FUNCTION:
            return module.run
        torch.manual_seed(0)
        model = module.ModelNew(*self.init_inputs)
        model = model.to(self.device) if hasattr(model, "to") else model
        ref = self.ref_model
        if isinstance(model, torch.nn.Module) and isinstance(ref, torch.nn.Module):
            mine, theirs = model.state_dict(), ref.state_dict()
            if mine.keys() == theirs.keys() and all(mine[k].shape == theirs[k].shape for k in mine):
                model.load_state_dict(theirs)
        return model  # in its built mode, as the gate's (b42)


def _own_memory(outputs: Any) -> Any:
    """``outputs`` with each tensor copied into memory of the checker's own: the expected output is kept across
    calls of reference.py and of candidates, and memory the reference returned is not ours to keep. A reference
    returning a view of an input (``x[:]``) left it in the inputs' memory, which a candidate writing into its inputs
    changed, so every correct candidate after it failed "output differs from the reference" (docs/faults.md
    refblame13 r8); one returning a slice of a buffer it keeps and writes on each call (``torch.add(x, y,
    out=_SLAB[:n])``) had the primary's expected output overwritten by the net's next size (refblame14 r10)."""
    from kernelopt.harness.inputs import map_tensors

    return map_tensors(outputs, lambda t: t.detach().clone())


def parameter_bytes(obj: Any) -> int:
    """The bytes of a ``torch.nn.Module``'s parameters and buffers (0 for anything else)."""
    import torch

    if not isinstance(obj, torch.nn.Module):
        return 0
    return sum(t.numel() * t.element_size() for t in [*obj.parameters(), *obj.buffers()])


@dataclass
class LoadedCandidate:
    """A candidate file imported and ready to call."""

    path: Path
    module: ModuleType
    fn: Callable[..., Any]

    def release(self) -> None:
        unload(self.module)


LOADING_FAILED = "loading failed: "
"""How a candidate's reason begins when its kernel.py raised as it was imported (``tune`` reads it: n162)."""


def load_candidate(loaded: LoadedProblem, path: Path) -> tuple[LoadedCandidate | None, Verdict]:
    """Import ``path`` and build its callable; ``(None, verdict)`` when that fails."""
    t0 = time.perf_counter()
    try:
        module = load_module(path, package=Path(loaded.problem.kernel_py).parent)
    except BaseException as exc:  # the candidate's file failed to import: a result
        if isinstance(exc, KeyboardInterrupt):
            raise
        return None, Verdict(Outcome.COMPILE_ERROR, f"{LOADING_FAILED}{first_line(exc, path)}")
    load_s = time.perf_counter() - t0
    if loaded.screen is not None:  # the autotune list's own filters: what its author says is valid
        rejected = screen_loaded(module, loaded.screen)
        if rejected is not None:
            unload(module)
            return None, Verdict(Outcome.INVALID, rejected, load_s=load_s)
        watch_prune(module, loaded.screen)
    try:
        fn = loaded.candidate_callable(module)
    except Exception as exc:  # ModelNew's constructor raised (an extension build, a bad argument): a result
        unload(module)
        verdict = classify(exc, path, "building ModelNew")
        verdict.load_s = load_s
        return None, verdict
    return LoadedCandidate(path, module, fn), Verdict(Outcome.OK, load_s=load_s)


def check_run(loaded: LoadedProblem, candidate: LoadedCandidate, verdict: Verdict) -> Verdict:
    """Run ``candidate`` once on the loaded inputs (output memory poisoned first) and check the inputs and the
    outputs; ``verdict`` (from :func:`load_candidate`) is completed and returned."""
    import torch

    from kernelopt.harness.inputs import poison_device_memory, tensors_in

    poison_device_memory(loaded.device, tensors_in(loaded.expected))
    t0 = time.perf_counter()
    try:
        with torch.set_grad_enabled(loaded.form.takes_gradients), watch_benchmarks() as benchmarked:
            out = candidate.fn(*loaded.inputs)
            synchronize(loaded.device)
    except Exception as exc:  # the candidate's own failure: a result
        failed = classify(exc, candidate.path, "running")
        failed.load_s, failed.first_call_s = verdict.load_s, time.perf_counter() - t0
        return failed
    verdict.first_call_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    try:
        changed = mutated_inputs(loaded)
        if changed:
            verdict.outcome, verdict.reason, verdict.error_class = Outcome.WRONG_RESULT, changed, "InputMutated"
            return verdict
        if loaded.contract is not None and loaded.contract.whole_result:  # the inputs, checked above, are the result
            return verdict
        chk = checked_output(loaded, out)
        verdict.rel_err, verdict.worst_ratio = chk.rel_err, chk.worst_ratio
        verdict.roundoff = EPS[chk.tolerance.precision] if chk.tolerance is not None else None
        if chk.message is not None:
            verdict.outcome, verdict.reason, verdict.error_class = Outcome.WRONG_RESULT, chk.message, chk.error_class
            if benchmarked and _right_on_the_next_call(loaded, candidate):
                verdict.reason, verdict.error_class = first_call_line(benchmarked, chk.message), FIRST_CALL_ONLY
    finally:
        del out
        verdict.check_s = time.perf_counter() - t1
    return verdict


def _right_on_the_next_call(loaded: LoadedProblem, candidate: LoadedCandidate) -> bool:
    """Whether a second call of a candidate whose first call failed its check passes it (the first call's autotuner
    benchmarked on its tensors: :mod:`kernelopt.harness.first_call`); a raise is no pass."""
    import torch

    try:
        with torch.set_grad_enabled(loaded.form.takes_gradients):
            again = candidate.fn(*loaded.inputs)
            synchronize(loaded.device)
    except Exception:  # the second call's own failure: the first call's line stands
        return False
    if mutated_inputs(loaded) is not None:
        return False
    return checked_output(loaded, again).message is None


def checked_output(loaded: LoadedProblem, out: Any) -> OutputCheck:
    """``out`` checked against the loaded problem's expected output, at its tolerances, on its inputs' device."""
    from kernelopt.harness.compare import VALUE_CLASSES, check_outputs, inputs_device_type

    def check(hi: Any, prepared: list[Any]) -> OutputCheck:
        return check_outputs(
            out,
            loaded.expected,
            hi,
            dtype_hint=loaded.problem.dtype_hint,
            atol=loaded.atol,
            rtol=loaded.rtol,
            chunk_elems=loaded.chunk_elems,
            prepared=prepared,
            inputs_type=inputs_device_type(loaded.inputs),
            inputs=loaded.inputs,
        )

    checked = check(loaded.expected, loaded.prepared)
    if checked.error_class in VALUE_CLASSES and (pair := loaded.gate_pair()) is not None:
        checked = check(*pair)  # the gate's reading: the reference's own rounding known (break22 b55, b56)
    return checked


def mutated_inputs(loaded: LoadedProblem, *, timing: bool = False) -> str | None:
    """The failure line when a candidate broke the in-place rule (:func:`kernelopt.harness.inplace.input_fault`,
    the gate's rule: an input the reference leaves alone left alone, one it modifies modified to what it leaves
    there; after a timing, ``timing``, only the first), else ``None``. Modified inputs are then built again."""
    from kernelopt.harness.inplace import input_fault

    assert loaded.prints is not None and loaded.contract is not None, "build() first"
    fault = input_fault(
        loaded.prints,
        loaded.inputs,
        loaded.contract,
        dtype_hint=loaded.problem.dtype_hint,
        atol=loaded.atol,
        rtol=loaded.rtol,
        after_timing=timing,
    )
    if fault is not None or loaded.contract.left:  # an input changed (or may have: an op in place)
        loaded.restore_inputs()
    return None if fault is None else f"the {fault.message}"


def run_candidate(loaded: LoadedProblem, path: Path) -> tuple[LoadedCandidate | None, Verdict]:
    """Load ``path``, run it once and check it; the loaded candidate is returned when it passed (else released)."""
    candidate, verdict = load_candidate(loaded, path)
    if candidate is None:
        return None, verdict
    verdict = check_run(loaded, candidate, verdict)
    if verdict.outcome is not Outcome.OK:
        candidate.release()
        return None, verdict
    return candidate, verdict


def recover(loaded: LoadedProblem, verdict: Verdict) -> None:
    """After a failed candidate: free what it left (an out-of-memory first) so the next one starts clean; after a
    sticky CUDA error nothing (the context is unusable: the parent starts the worker again)."""
    if verdict.restart:
        return
    if verdict.outcome is Outcome.OUT_OF_MEMORY or verdict.outcome is Outcome.RUN_ERROR:
        gc.collect()
        if loaded.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()


def indexed_device(device: str) -> str:
    """``device`` with its index: ``cuda`` becomes ``cuda:<current device>`` (torch's per-device calls,
    ``set_device`` and the memory statistics, refuse a CUDA device without one); others unchanged."""
    if device != "cuda":
        return device
    import torch

    return f"cuda:{torch.cuda.current_device()}"


def device_free_bytes(device: str) -> int:
    """Free memory of ``device``: ``torch.cuda.mem_get_info`` on a GPU; on the CPU the kernel's MemAvailable,
    lowered to the cgroup's limit minus its use when there is one."""
    if device.startswith("cuda"):
        import torch

        free, _total = torch.cuda.mem_get_info(torch.device(device))
        return int(free)
    return host_available_bytes() or 0


def resident_bytes(key: str = "VmRSS") -> int | None:
    """This process's resident memory (``VmRSS``) or its peak (``VmHWM``), bytes; ``None`` off Linux."""
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def reset_resident_peak() -> bool:
    """Reset this process's ``VmHWM`` to its current RSS (Linux ``clear_refs`` 5); False when refused."""
    try:
        with open(f"/proc/{os.getpid()}/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        return False
    return True
