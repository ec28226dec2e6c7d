"""The reference's run in higher precision, and what it weighs: one place for the gate and the tuning engine.

The gate's check (:mod:`kernelopt.harness.worker`) compares every output of a kernel with the reference run in
float64 (else float32) on upcast copies of the inputs; the tuning engine's check (:mod:`kernelopt.tuning.checks`)
reads that run for its integer outputs (a quantizer's int8 at a rounding tie). Both run it with :func:`run_high`,
size it with :func:`check_footprint` (the inputs upcast, the outputs in float64: :func:`high_bytes`, 8 bytes per
floating element) and ask :func:`~kernelopt.harness.footprint.place_check` whether it fits on the device beside
what the check keeps: when it does not, neither runs it, and each says why.

torch is imported inside the functions: importing this module does nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kernelopt.harness.branches import Line, LineTrace, OwnCode
from kernelopt.harness.footprint import CheckFootprint


@dataclass
class HighRun:
    """The reference's outputs from one run in higher precision.

    Attributes:
        outputs: what it returned.
        precision: the dtype it ran in (``float64``, ``float32``).
        lines: the lines of the reference's own code it executed (:class:`~kernelopt.harness.branches.LineTrace`;
            empty when none were traced).
    """

    outputs: Any
    precision: str
    lines: set[Line] = field(default_factory=set)


def run_high(
    ref: Callable[..., Any],
    inputs: list[Any],
    cache: dict[Any, Any],
    *,
    seed: int | None = None,
    own: OwnCode | None = None,
) -> HighRun | None:
    """The reference in float64, else float32, on upcast copies of ``inputs``
    (:func:`~kernelopt.harness.inputs.upcast_tree`); ``None`` when it runs in neither.

    Args:
        ref: the reference (a function, or a ``torch.nn.Module`` whose upcast copy is made once per dtype and kept
            in ``cache``).
        inputs: the case's inputs (left as they are).
        cache: the module's upcast copies by dtype, kept between calls.
        seed: the random state each attempt starts from (``torch.manual_seed``); ``None``: as it is.
        own: the reference's own code, whose executed lines are recorded (``None``: none).
    """
    import torch

    from kernelopt.harness.inputs import upcast_tree

    for dtype in (torch.float64, torch.float32):
        try:
            fn = ref
            if isinstance(ref, torch.nn.Module):
                if dtype not in cache:
                    cache[dtype] = copy.deepcopy(ref).to(dtype)
                fn = cache[dtype]
            if seed is not None:
                torch.manual_seed(seed)
            with LineTrace(own) as path:
                out = fn(*upcast_tree(inputs, dtype))
            return HighRun(out, str(dtype).removeprefix("torch."), path.lines)
        except (Exception, SystemExit):  # user reference code that cannot run in this dtype; try the next
            continue
    return None


def high_bytes(obj: Any) -> int:
    """Bytes of ``obj``'s tensors as the run in higher precision holds them: 8 per floating element (float64), a
    clone of any other (:func:`~kernelopt.harness.inputs.upcast_tree` clones what it does not upcast)."""
    from kernelopt.harness.inputs import high_copy_bytes, tensors_in

    return sum(high_copy_bytes(t.numel(), t.dtype) for t in tensors_in(obj))


def check_footprint(free: int | None, inputs: Any, ref_native: Any, peak: int | None) -> CheckFootprint:
    """:class:`~kernelopt.harness.footprint.CheckFootprint` of one check from what was measured after the
    reference's own-dtype run: ``free`` bytes of the device (``None`` on the CPU), the inputs, the reference's
    outputs, and its peak above the inputs (``None``: not measured, the outputs stand for it). The float64 outputs
    and run are scaled from the own-dtype ones (:func:`high_bytes`)."""
    from kernelopt.harness.inputs import nbytes

    outputs = nbytes(ref_native)
    kernel = max(outputs, peak or 0)
    high_out = high_bytes(ref_native)
    scale = high_out / outputs if outputs else 2.0
    return CheckFootprint(
        free_bytes=free,
        input_bytes=nbytes(inputs),
        output_bytes=outputs,
        high_output_bytes=high_out,
        high_run_bytes=high_bytes(inputs) + int(kernel * scale),
        kernel_bytes=kernel,
    )


def device_free_bytes(device: str) -> int | None:
    """The device's free memory in bytes, the caching allocator's unused blocks given back first; ``None`` on the
    CPU (nothing to place: every copy stays where it is made; the host's room for them is counted before, as the
    inputs are built: :func:`~kernelopt.harness.inputs.check_outputs_room`)."""
    if not device.startswith("cuda"):
        return None
    import torch

    torch.cuda.empty_cache()
    free, _total = torch.cuda.mem_get_info(torch.device(device))
    return int(free)


@dataclass
class RoundedRun:
    """The reference's outputs from a run rounding as its own dtype does, without its range (:func:`run_rounded`).

    Attributes:
        outputs: what it returned (float32 where its own run returned fp16 or bf16).
        overflowed: some operation's result lay past the own dtype's largest finite value, which the own run cannot
            hold (an infinity there, or what a ``nan_to_num`` or a clamp made of one).
        lines: the lines of the reference's own code it executed.
    """

    outputs: Any
    overflowed: bool
    lines: set[Line] = field(default_factory=set)


def run_rounded(
    ref: Callable[..., Any],
    inputs: list[Any],
    cache: dict[Any, Any],
    dtype: Any,
    *,
    seed: int | None = None,
    own: OwnCode | None = None,
) -> RoundedRun | None:
    """The reference on float32 copies of ``inputs`` with every float32 result of every operation rounded to
    ``dtype``'s significand (fp16's 11 bits, bf16's 8), its range left float32's: its own dtype's rounding without
    its overflow, and whether an operation's result lay past ``dtype``'s largest finite value (verdicts22 x8: an fp16
    sum that overflowed and was kept at 65504, then divided by, left every quotient in range and 1.27x its float64
    value; read as the reference's rounding it widened the tolerance past a kernel 10 % off). ``None`` where it does
    not run so. A Module's float32 copy is ``cache``'s, as :func:`run_high` keeps it."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from kernelopt.harness.inputs import tensors_in, upcast_tree

    bits = {torch.float16: 11, torch.bfloat16: 8}.get(dtype)  # the significand's bits, its leading one counted
    if bits is None:
        return None
    largest = float(torch.finfo(dtype).max)
    scale = float(2**bits)

    class Rounding(TorchDispatchMode):
        overflowed = False

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            out = func(*args, **(kwargs or {}))
            for t in tensors_in(out):
                if t.dtype is torch.float32 and t.numel():
                    mantissa, exponent = torch.frexp(t)
                    t.copy_(torch.ldexp(torch.round(mantissa * scale) / scale, exponent))
                    if not Rounding.overflowed and bool((t.abs() > largest).any()):
                        Rounding.overflowed = True
            return out

    try:
        fn = ref
        if isinstance(ref, torch.nn.Module):
            if torch.float32 not in cache:
                cache[torch.float32] = copy.deepcopy(ref).to(torch.float32)
            fn = cache[torch.float32]
        if seed is not None:
            torch.manual_seed(seed)
        copies = upcast_tree(inputs, torch.float32)
        with torch.no_grad(), LineTrace(own) as path, Rounding():
            out = fn(*copies)
        return RoundedRun(out, Rounding.overflowed, path.lines)
    except (Exception, SystemExit):  # user reference code that cannot run so
        return None


def rounded_reading(
    ref: Callable[..., Any],
    inputs: list[Any],
    cache: dict[Any, Any],
    native: Any,
    high: Any,
    *,
    dtype_hint: str | None,
    lines: set[Line],
    seed: int | None = None,
    own: OwnCode | None = None,
) -> tuple[list[Any], Any] | None:
    """What the value checks read of the reference's outputs (:func:`~kernelopt.harness.compare.prepare_pair`) with
    its rounding taken from :func:`run_rounded`, and the dtype it rounded as, where its own run's error would widen
    the default tolerance and an operation of that run overflowed the dtype: that error is the overflow's, no rounding
    (verdicts22 x8). ``None`` elsewhere (outputs of no single fp16 or bf16 dtype, nothing widened, no overflow, a run
    that fails or takes other lines of the reference's code than its own run, ``lines``): the pair is read as it is.
    The one rule of the gate's check (:mod:`kernelopt.harness.worker`) and the tuning engine's reading of the pair
    (:meth:`kernelopt.tuning.checks.LoadedProblem.gate_pair`: without it a candidate 10 % off x8's quotient passed
    tune's check and the code net, widened x176; review22 r22). A reference.py's own ATOL or RTOL is the caller's to
    leave alone."""
    import torch

    from kernelopt.harness.compare import prepare_pair
    from kernelopt.harness.inputs import tensors_in

    low = {t.dtype for t in tensors_in(native) if t.dtype in (torch.float16, torch.bfloat16)}
    if len(low) != 1:
        return None
    stats = prepare_pair(native, high, dtype_hint=dtype_hint)
    if not any(s is not None and "widened" in s.tolerance.basis for s in stats):
        return None
    dtype = low.pop()
    rounded = run_rounded(ref, inputs, cache, dtype, seed=seed, own=own)
    if rounded is None or not rounded.overflowed or rounded.lines != lines:
        return None
    return prepare_pair(native, high, dtype_hint=dtype_hint, rounded_obj=rounded.outputs), dtype
