"""The net over a code change: a kernel an implementer rewrote (a coding agent, an LLM) checked at sizes ``SHAPES``
does not name, each where the original kernel passes.

DESIGN.md, "Shapes": a kernel wrong at any size the original handled is worse than none. The gate checks the
``SHAPES`` entries (the timed sizes) only, and the tuner's net (:mod:`kernelopt.tuning.net`) ran only under a pick
``tune`` writes; a rewritten kernel right only at the timed sizes (a softmax over a row's first 128 columns, where
every entry has 128) passed the gate and became the run's kernel (break21 b43). Here the same net runs over any
rewrite: its sizes derived from the entries as for a pick that moves no knob (:func:`~kernelopt.tuning.net.
derived_sizes` with ``residue``: every size below, past and between the entries, down to 1), checked in one bench
worker (:class:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator`), the original run only where the rewrite fails.

A rewrite may assume anything of a size, so two more than a pick's net (leftovers23 l31): reference.py's module-level
sizes below the size scale's 16 move too (:data:`CODE_NET_LEAST`: a batch of 2, a 6 x 6 x 6 volume, a 3-channel
image; break22's ConvTranspose3d and VGG head had no size to move), and the ``far`` ladders run (each size alone at
twice its largest entry plus the entries' common factor, four times, ..., while the original passes, each rung at most
:data:`~kernelopt.tuning.net.FAR_SURE_SCALE` times every entry's elements together and within a share of the memory:
:func:`~kernelopt.tuning.net._far`): the net went no further than 1.5 times an entry, and an FFT convolution whose
transform is fixed at 8192 points, right up to a 7168-long signal, wrapped from 7169 on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from kernelopt.harness.sizekeys import KeyReading, key_roles
from kernelopt.harness.sizes import SizeValue, module_sizes
from kernelopt.kernelsource import read_python
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.kernel_evaluator import KernelEvaluator
from kernelopt.tuning.net import FAR_SURE_SCALE, CheckAt, FarRoom, NetCap, NetVerdict, cast, derived_sizes
from kernelopt.tuning.problem import Problem, ProblemShape, reference_shapes
from kernelopt.tuning.shapes import session_shapes

CODE_NET_S = 120.0
"""The net's time cap over one rewrite, seconds: a size it cannot start within it is left unchecked and said."""

CODE_NET_LEAST = 2
"""The least module-level size the code net moves (a size scale's least is :data:`kernelopt.harness.sizes.
SCALE_MIN_VALUE`, 16): a 2 moves to 3 past and 1 below, a 6 to 9 and 3 (a size of 1 has no odd neighbour below)."""


def code_net_cap(now: float, cap_s: float = CODE_NET_S) -> NetCap:
    """The net's cap over one rewrite from ``now``: ``cap_s`` outright, and said so (no session's share, no wall)."""
    return NetCap(deadline=now + cap_s, seconds=cap_s, session_s=cap_s, fixed="the net's cap over a rewritten kernel")


def code_net_reading(
    folder: Path, *, device: str | None, size_scale: float | None = None
) -> tuple[Problem, list[ProblemShape], dict[str, KeyReading], dict[str, SizeValue]]:
    """What the net's sizes are derived from (:func:`~kernelopt.tuning.net.derived_sizes`): ``folder``'s problem, its
    ``SHAPES`` entries as the gate runs them (the primary first), each key's reading in ``get_inputs`` and
    reference.py's module-level sizes from :data:`CODE_NET_LEAST` up."""
    problem = Problem.from_folder(folder, device=device, size_scale=size_scale)
    reference_py = problem.reference_py
    shapes = session_shapes(problem, reference_shapes(reference_py, constants=problem.constants, device=device) or [{}])
    roles = key_roles(read_python(reference_py))
    constants = module_sizes(reference_py, shapes[0].constants if shapes else None, least=CODE_NET_LEAST)
    return problem, shapes, roles, constants


def check_code_change(
    folder: Path,
    original: str,
    written: str,
    *,
    device: str | None,
    session_dir: Path,
    size_scale: float | None = None,
    cap_s: float = CODE_NET_S,
    clock: Callable[[], float] = time.monotonic,
    original_root: Path | None = None,
) -> NetVerdict:
    """The net's verdict on ``written`` (kernel.py's text now) against ``original`` (the kernel as the user wrote
    it), beside ``folder``'s reference.py at the sizes its gate runs (the task card's ``sizes``; ``size_scale``,
    else the card's: the net moves the scaled sizes, never the problem as written where a quick run scaled it).

    ``original_root``: a folder holding the sources the original was written beside (V0's helper modules), where a
    rewrite changed a file other than kernel.py: the original runs there, in a worker of its own, so a helper changed
    wrong is not run on both sides (late31 z92: a helper-only rewrite, kernel.py's text as V0's, was never netted).

    Raises:
        KerneloptError: the bench worker cannot start or the problem does not fit (the caller's "not checked").
    """
    problem, shapes, roles, constants = code_net_reading(folder, device=device, size_scale=size_scale)
    if not derived_sizes(shapes, (), roles, constants, residue=True):
        return NetVerdict(not_cast="reference.py gives no size to move (SHAPES keys or module-level sizes)")
    cap = code_net_cap(clock(), cap_s)
    with contextlib.ExitStack() as stack:
        evaluator = stack.enter_context(
            KernelEvaluator(problem, original, lambda _config: original, session_dir=session_dir)
        )
        # the far ladders' room: the memory free as the bench worker started, each rung's footprint read on the meta
        # device (late33 z100: an output growing as the square of the sizes outgrew the primary's bytes an element)
        far = FarRoom.of(evaluator.start(), most_scale=FAR_SURE_SCALE, footprints=evaluator.footprints)
        sizes = derived_sizes(shapes, (), roles, constants, residue=True, far=far)
        check_at, check_alone = evaluator.check_at, evaluator.check_alone
        if original_root is not None:
            # its reference.py too (V0's bytes, the same as the folder's): a worker imports beside either
            beside = problem.model_copy(
                update={"kernel_py": original_root / "kernel.py", "reference_py": original_root / "reference.py"}
            )
            theirs = stack.enter_context(
                KernelEvaluator(beside, original, lambda _config: original, session_dir=session_dir / "original")
            )
            check_at = _by_side(original, theirs.check_at, check_at)
            check_alone = _by_side(original, theirs.check_alone, check_alone)
        verdict = cast(
            sizes,
            original,
            written,
            check_at,
            build_at=evaluator.build_at,
            cap=cap,
            clock=clock,
            check_alone=check_alone,
            request_s=evaluator.request_s,
            far=far,
        )
        return verdict


def _by_side(original: str, theirs: CheckAt, ours: CheckAt) -> CheckAt:
    """``theirs`` for the original's text (the very object the net was handed: a helper-only rewrite's kernel.py is
    the same text), ``ours`` for the written kernel's."""

    def check(source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        return (theirs if source is original else ours)(source, shape, limit_s)

    return check
