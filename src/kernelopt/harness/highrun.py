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
