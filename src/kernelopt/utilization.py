"""The spec's ``compute_utilization``: achieved rates, % of peak, arithmetic intensity and roofline.

Pure arithmetic; the peaks come from a :class:`~kernelopt.hardware.specs.GpuSpec` (vendor figures) or
from measured ceilings passed in. Units: latency in microseconds, FLOP and bytes as counts, TFLOP/s =
1e12 FLOP/s, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import BaseModel

from kernelopt.errors import UsageError


class Roof(StrEnum):
    MEMORY = "memory"
    COMPUTE = "compute"
    UNKNOWN = "unknown"


class Utilization(BaseModel):
    """Achieved performance against the roofline of one GPU and dtype.

    Attributes:
        latency_us: the measured latency.
        flops: FLOP per launch (``None`` when unknown: then TFLOP/s and intensity are ``None``).
        bytes_moved: bytes read + written per launch.
        tflops: achieved TFLOP/s.
        bandwidth_gbps: achieved GB/s.
        peak_tflops: the compute roof used (TFLOP/s).
        peak_gbps: the memory roof used (GB/s).
        tflops_pct: achieved / peak compute, percent.
        bandwidth_pct: achieved / peak bandwidth, percent.
        arithmetic_intensity: FLOP per byte.
        ridge_point: peak FLOP/s / peak bytes/s, FLOP per byte; kernels left of it are memory-bound.
        bound: which roof bounds this kernel at its intensity.
        roofline_latency_us: the fastest latency the roofline allows for this problem size.
        roofline_pct: roofline latency / measured latency, percent (the stop condition's figure).
        warnings: accounting problems (e.g. utilization above 100 %).
    """

    latency_us: float
    flops: float | None
    bytes_moved: float | None
    tflops: float | None
    bandwidth_gbps: float | None
    peak_tflops: float | None
    peak_gbps: float | None
    tflops_pct: float | None
    bandwidth_pct: float | None
    arithmetic_intensity: float | None
    ridge_point: float | None
    bound: Roof
    roofline_latency_us: float | None
    roofline_pct: float | None
    warnings: list[str] = []


def compute_utilization(
    *,
    latency_us: float,
    flops: float | None,
    bytes_moved: float | None,
    peak_tflops: float | None,
    peak_gbps: float | None,
) -> Utilization:
    """Compute achieved rates and roofline position.

    Args:
        latency_us: measured latency per launch, microseconds (> 0).
        flops: floating-point operations per launch (``None`` when unknown).
        bytes_moved: DRAM bytes per launch (read + write), ``None`` when unknown.
        peak_tflops: compute roof in TFLOP/s for the dtype (``None`` when unknown).
        peak_gbps: memory roof in GB/s (``None`` when unknown).

    Raises:
        UsageError: latency not a positive finite number, or counts negative or not finite (a NaN passed every
            comparison and gave a table of nan, an infinity a JSON of ``Infinity``, which is no JSON).
    """
    if not latency_us or not latency_us > 0 or not math.isfinite(latency_us):
        raise UsageError(f"latency must be positive and finite, got {latency_us} us")
    for label, v in (("flops", flops), ("bytes", bytes_moved)):
        if v is not None and not (v >= 0 and math.isfinite(v)):
            raise UsageError(f"{label} must be a finite number >= 0, got {v}")
    seconds = latency_us * 1e-6
    tflops = flops / seconds / 1e12 if flops is not None else None
    gbps = bytes_moved / seconds / 1e9 if bytes_moved is not None else None
    tflops_pct = 100.0 * tflops / peak_tflops if tflops is not None and peak_tflops else None
    bw_pct = 100.0 * gbps / peak_gbps if gbps is not None and peak_gbps else None
    intensity = flops / bytes_moved if flops is not None and bytes_moved else None
    ridge = peak_tflops * 1e12 / (peak_gbps * 1e9) if peak_tflops and peak_gbps else None

    t_compute = flops / (peak_tflops * 1e12) * 1e6 if flops is not None and peak_tflops else None
    t_memory = bytes_moved / (peak_gbps * 1e9) * 1e6 if bytes_moved is not None and peak_gbps else None
    candidates = [t for t in (t_compute, t_memory) if t is not None]
    roof_us = max(candidates) if candidates else None
    if t_compute is not None and t_memory is not None:
        bound = Roof.COMPUTE if t_compute >= t_memory else Roof.MEMORY
    elif t_memory is not None:
        bound = Roof.MEMORY
    elif t_compute is not None:
        bound = Roof.COMPUTE
    else:
        bound = Roof.UNKNOWN
    roof_pct = 100.0 * roof_us / latency_us if roof_us is not None else None

    warnings = []
    for label, pct in (("compute", tflops_pct), ("bandwidth", bw_pct), ("roofline", roof_pct)):
        if pct is not None and pct > 100.0:
            warnings.append(
                f"{label} utilization {pct:.1f} % exceeds 100 %: a measurement or accounting error "
                "(check flops()/bytes_moved() or the timing), not a success"
            )
    return Utilization(
        latency_us=latency_us,
        flops=flops,
        bytes_moved=bytes_moved,
        tflops=tflops,
        bandwidth_gbps=gbps,
        peak_tflops=peak_tflops,
        peak_gbps=peak_gbps,
        tflops_pct=tflops_pct,
        bandwidth_pct=bw_pct,
        arithmetic_intensity=intensity,
        ridge_point=ridge,
        bound=bound,
        roofline_latency_us=roof_us,
        roofline_pct=roof_pct,
        warnings=warnings,
    )
