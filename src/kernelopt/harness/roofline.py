"""Both roofline bounds of one measured version, computed once by the gate and stored in the record.

Against the measured ceilings of ``kernelopt ceilings`` (the fastest measured memory stream, dense
matmul rate) and against the vendor spec peak of the gpu-wiki spec sheet. Pure: no I/O. The stop
check (:mod:`kernelopt.loop.stop`) and the reports only read ``performance.roofline``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from kernelopt.errors import UsageError
from kernelopt.hardware.specs import GpuSpec, lookup, normalize_dtype
from kernelopt.memory.model import Performance, RooflineBounds
from kernelopt.utilization import compute_utilization


class Ceilings(Protocol):
    """Measured ceilings of one GPU (``kernelopt ceilings``; :class:`kernelopt.hardware.ceilings.Ceilings`
    has this shape): the one protocol the gate, the loop and the report read them through.

    ``memory_gbps``: the memory bandwidth ceiling, the fastest measured stream counting bytes read +
    written, GB/s; ``memory_stream``: which stream gave it (``copy``, ``add``, ``sum``).
    ``matmul_tflops``: dense matmul rate per dtype (``fp16``, ``bf16``, ``fp32`` ...), TFLOP/s. A
    ``stream_gbps`` mapping (every stream's GB/s), when present, is cited by the report beside the memory roof.
    """

    @property
    def memory_gbps(self) -> float | None: ...

    @property
    def memory_stream(self) -> str | None: ...

    @property
    def matmul_tflops(self) -> Mapping[str, float]: ...


def gpu_spec(device_name: str | None, card_gpu: str | None) -> tuple[GpuSpec | None, str | None]:
    """The spec sheet for a version: the GPU it ran on first (what was measured), else the task card's.

    Returns:
        (spec, why it is missing); the reason is ``None`` when a sheet was found.
    """
    missing = None
    for name in (device_name, card_gpu):
        if not name:
            continue
        try:
            return lookup(name), None
        except UsageError as exc:
            missing = missing or exc.one_line()
    return None, missing or "GPU unknown (set gpu in README.md)"


def _spec_tflops(spec: GpuSpec, dt: str | None) -> float | None:
    if dt is None:
        return None
    try:
        return spec.peak_tflops(dt)
    except UsageError:  # the sheet has no figure for this dtype
        return None


def _work(perf: Performance) -> tuple[float | None, float | None]:
    """(FLOP, bytes) per launch as the gate recorded them; records written before the gate stored the
    counts (no ``flops`` nor ``bytes_moved``) give them back from the measured rates: rate x latency."""
    if perf.flops is not None or perf.bytes_moved is not None:
        return perf.flops, perf.bytes_moved
    lat = perf.latency_us
    if not lat:
        return None, None
    seconds = lat * 1e-6
    flops = perf.tflops * 1e12 * seconds if perf.tflops is not None else None
    nbytes = perf.bandwidth_gbps * 1e9 * seconds if perf.bandwidth_gbps is not None else None
    return flops, nbytes


def roofline_bounds(
    perf: Performance,
    *,
    spec: GpuSpec | None,
    spec_missing: str | None,
    dtype: str | None,
    ceilings: Ceilings | None,
) -> RooflineBounds:
    """The measured-ceiling and spec-peak roofline bounds of one measured version.

    Args:
        perf: the version's measured performance (latency_us, tflops, bandwidth_gbps).
        spec: the GPU's spec sheet (gpu-wiki), or None.
        spec_missing: why ``spec`` is None (unknown GPU, not set in README.md ...).
        dtype: the compute dtype of the task card (``bf16``, ``fp16`` ...); the compute roof needs it.
        ceilings: measured ceilings, or None when ``kernelopt ceilings`` has not run on this GPU.
    """
    out = RooflineBounds(gate_pct=perf.roofline_utilization_pct)
    flops, nbytes = _work(perf)
    if perf.latency_us is None or perf.latency_us <= 0:
        out.measured_note = out.spec_note = "no latency measured"
        return out
    if flops is None and nbytes is None:
        out.measured_note = out.spec_note = "FLOP and byte counts unknown"
        return out
    dt: str | None = None
    dtype_note = ""
    if dtype:
        try:
            dt = normalize_dtype(dtype)
        except UsageError:
            dt = None
        if dt is None:
            dtype_note = f"; dtype {dtype!r} not known"
    elif flops is not None:
        dtype_note = "; compute roof unknown (no dtype in README.md): memory roof only"

    latency_us = perf.latency_us

    def bound(peak_t: float | None, peak_b: float | None, memory: str, compute: str) -> tuple[float | None, str]:
        """The roofline % against these roofs, and the roofs (``memory``, ``compute``: each in words, for the
        roof that is known) with the bound the version hits."""
        u = compute_utilization(
            latency_us=latency_us, flops=flops, bytes_moved=nbytes, peak_tflops=peak_t, peak_gbps=peak_b
        )
        roofs = [words for peak, words in ((peak_b, memory), (peak_t, compute)) if peak is not None]
        return u.roofline_pct, ", ".join(roofs) + f", {u.bound.value}-bound" + dtype_note

    if ceilings is None:
        out.measured_note = "no measured ceilings for this GPU (run `kernelopt ceilings`)"
    else:
        peak_t = ceilings.matmul_tflops.get(dt) if dt else None
        peak_b = ceilings.memory_gbps
        if peak_b is None and peak_t is None:
            out.measured_note = "the measured ceilings hold no figure for this dtype"
        else:
            memory = f"{ceilings.memory_stream or 'memory'} {peak_b or 0:.0f} GB/s"
            out.measured_pct, note = bound(peak_t, peak_b, memory, f"{dt} matmul {peak_t or 0:.1f} TFLOP/s")
            out.measured_note = "measured " + note
    if spec is None:
        out.spec_note = spec_missing or "no spec sheet"
    else:
        peak_t = _spec_tflops(spec, dt)
        peak_b = spec.memory_bandwidth_gbps
        if peak_b is None and peak_t is None:
            out.spec_note = f"{spec.name}: no published peak for this dtype"
        else:
            memory = f"{peak_b:.0f} GB/s ({spec.cite('memory_bandwidth_gbps')})" if peak_b is not None else ""
            compute = f"{dt} {peak_t:.0f} TFLOP/s ({spec.cite(f'peak_tflops_{dt}')})" if peak_t is not None else ""
            out.spec_pct, note = bound(peak_t, peak_b, memory, compute)
            out.spec_note = f"{spec.name} spec " + note
    return out
