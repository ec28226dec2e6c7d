"""Stage 6: the roofline bound of the current kernel and the stop decision. Pure: no I/O, no clock.

The default stop condition is the spec's: latency within 90 % of the roofline bound for this problem
size (``StopConditions.roofline_utilization_pct``). The bound is computed twice, as the issue asks:
against the measured ceilings of ``kernelopt ceilings`` (the fastest measured memory stream, dense
matmul rate), and against
the vendor spec peak of the gpu-wiki spec sheet. The stop check uses the measured bound when it exists
(it is the roof this machine can reach), else the spec bound, else the gate's own figure.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from kernelopt.errors import UsageError
from kernelopt.hardware.specs import GpuSpec, normalize_dtype
from kernelopt.loop.protocols import Ceilings
from kernelopt.memory.model import Performance
from kernelopt.taskcard import StopConditions
from kernelopt.utilization import compute_utilization


class RooflineBounds(BaseModel):
    """Where a version's latency sits against the roofline bound for its problem size.

    Attributes:
        measured_pct: roofline latency (measured ceilings) / latency, percent; None with ``measured_note``.
        measured_note: the ceilings used, or why there is no measured bound.
        spec_pct: roofline latency (spec-sheet peaks) / latency, percent; None with ``spec_note``.
        spec_note: the spec figures used (with their source), or why there is none.
        gate_pct: the gate's own ``roofline_utilization_pct``, when it reported one.
    """

    measured_pct: float | None = None
    measured_note: str = "not computed"
    spec_pct: float | None = None
    spec_note: str = "not computed"
    gate_pct: float | None = None

    def stop_figure(self) -> tuple[float | None, str]:
        """(percent, which bound) the stop condition uses: measured, else spec, else the gate's."""
        if self.measured_pct is not None:
            return self.measured_pct, "measured ceilings"
        if self.spec_pct is not None:
            return self.spec_pct, "spec peak"
        if self.gate_pct is not None:
            return self.gate_pct, "gate"
        return None, "none"

    def lines(self) -> list[str]:
        """Both bounds in words, one line each (for reports and records)."""
        return [
            "roofline bound, measured ceilings: " + _pct_text(self.measured_pct) + f" ({self.measured_note})",
            "roofline bound, spec peak: " + _pct_text(self.spec_pct) + f" ({self.spec_note})",
        ]


def _pct_text(pct: float | None) -> str:
    return "n/a" if pct is None else f"{pct:.3g} % of the bound"


def _spec_tflops(spec: GpuSpec, dt: str | None) -> float | None:
    if dt is None:
        return None
    try:
        return spec.peak_tflops(dt)
    except UsageError:  # the sheet has no figure for this dtype
        return None


def _work(perf: Performance) -> tuple[float | None, float | None]:
    """(FLOP, bytes) per launch recovered from the measured rates: rate x latency."""
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

    if ceilings is None:
        out.measured_note = "no measured ceilings for this GPU (run `kernelopt ceilings`)"
    else:
        peak_t = ceilings.matmul_tflops.get(dt) if dt else None
        peak_b = ceilings.memory_gbps
        if peak_b is None and peak_t is None:
            out.measured_note = "the measured ceilings hold no figure for this dtype"
        else:
            u = compute_utilization(
                latency_us=perf.latency_us, flops=flops, bytes_moved=nbytes, peak_tflops=peak_t, peak_gbps=peak_b
            )
            out.measured_pct = u.roofline_pct
            parts = []
            if peak_b is not None:
                parts.append(f"{ceilings.memory_stream or 'memory'} {peak_b:.0f} GB/s")
            if peak_t is not None:
                parts.append(f"{dt} matmul {peak_t:.1f} TFLOP/s")
            out.measured_note = "measured " + ", ".join(parts) + f", {u.bound.value}-bound" + dtype_note

    if spec is None:
        out.spec_note = spec_missing or "no spec sheet"
    else:
        peak_t = _spec_tflops(spec, dt)
        peak_b = spec.memory_bandwidth_gbps
        if peak_b is None and peak_t is None:
            out.spec_note = f"{spec.name}: no published peak for this dtype"
        else:
            u = compute_utilization(
                latency_us=perf.latency_us, flops=flops, bytes_moved=nbytes, peak_tflops=peak_t, peak_gbps=peak_b
            )
            out.spec_pct = u.roofline_pct
            parts = []
            if peak_b is not None:
                parts.append(f"{peak_b:.0f} GB/s ({spec.cite('memory_bandwidth_gbps')})")
            if peak_t is not None:
                parts.append(f"{dt} {peak_t:.0f} TFLOP/s ({spec.cite(f'peak_tflops_{dt}')})")
            out.spec_note = f"{spec.name} spec " + ", ".join(parts) + f", {u.bound.value}-bound" + dtype_note
    return out


class StopReason(StrEnum):
    """Why the loop stopped."""

    ROOFLINE_UTILIZATION = "roofline_utilization"
    TARGET_LATENCY = "target_latency"
    TARGET_SPEEDUP = "target_speedup"
    TARGET_SPEEDUP_VS_REFERENCE = "target_speedup_vs_reference"
    MAX_ITERATIONS = "max_iterations"
    MAX_WALL_TIME = "max_wall_time"
    NO_NEW_PLAN = "no_new_plan"
    FAILURE_BUDGET = "failure_budget"
    STOP_ON_FAILURE = "stop_on_failure"
    BASELINE_FAILED = "baseline_failed"


class StopDecision(BaseModel):
    """The reason and its evidence in one line."""

    reason: StopReason
    detail: str

    def line(self) -> str:
        return f"{self.reason.value}: {self.detail}"


def decide(
    *,
    conditions: StopConditions,
    current: Performance | None,
    roofline: RooflineBounds | None,
    baseline_latency_us: float | None,
    iterations_done: int,
    consecutive_failures: int,
    last_failed: bool,
    stop_on_failure: bool,
    elapsed_s: float,
) -> StopDecision | None:
    """The Stage 6 decision: a reason to stop, or None to run another iteration.

    Goals are checked first (roofline utilization, target latency, speedups), then failures
    (``--stop-on-failure``, the consecutive-failure budget), then limits (iterations, wall time).

    Args:
        conditions: the effective stop conditions (README.md front matter with flag overrides).
        current: performance of the current kernel (the last passing version; V0 at first); its
            ``speedup_vs_reference`` is the gate's interleaved measurement against the reference.
        roofline: its roofline bounds.
        baseline_latency_us: V0 latency, microseconds.
        iterations_done: iterations V1.. finished in this run (passed or failed).
        consecutive_failures: failed iterations in a row at the end of the run.
        last_failed: the iteration that just ended failed.
        stop_on_failure: stop at the first failure.
        elapsed_s: wall time of the run so far, seconds.
    """
    lat = current.latency_us if current is not None else None
    if roofline is not None:
        pct, which = roofline.stop_figure()
        # Above 100 % is an accounting or timing error (see compute_utilization), never a reason to stop.
        if pct is not None and conditions.roofline_utilization_pct <= pct <= 100.0:
            return StopDecision(
                reason=StopReason.ROOFLINE_UTILIZATION,
                detail=f"{pct:.1f} % of the roofline bound ({which}) >= {conditions.roofline_utilization_pct:g} %",
            )
    if lat is not None and conditions.target_latency_us is not None and lat <= conditions.target_latency_us:
        return StopDecision(
            reason=StopReason.TARGET_LATENCY,
            detail=f"latency {lat:.4g} us <= target {conditions.target_latency_us:g} us",
        )
    if lat and conditions.target_speedup is not None and baseline_latency_us:
        speedup = baseline_latency_us / lat
        if speedup >= conditions.target_speedup:
            return StopDecision(
                reason=StopReason.TARGET_SPEEDUP,
                detail=f"speedup over V0 {speedup:.3g}x >= target {conditions.target_speedup:g}x",
            )
    vs_ref = current.speedup_vs_reference if current is not None else None
    if conditions.target_speedup_vs_reference is not None and vs_ref is not None and vs_ref.eager is not None:
        speedup = vs_ref.eager
        if speedup >= conditions.target_speedup_vs_reference:
            return StopDecision(
                reason=StopReason.TARGET_SPEEDUP_VS_REFERENCE,
                detail=f"speedup over the reference {speedup:.3g}x >= target "
                f"{conditions.target_speedup_vs_reference:g}x",
            )
    if last_failed and stop_on_failure:
        return StopDecision(
            reason=StopReason.STOP_ON_FAILURE, detail="the iteration failed and --stop-on-failure is set"
        )
    if consecutive_failures >= conditions.max_consecutive_failures:
        return StopDecision(
            reason=StopReason.FAILURE_BUDGET,
            detail=f"{consecutive_failures} consecutive failed iterations "
            f"(budget {conditions.max_consecutive_failures})",
        )
    if conditions.max_iterations is not None and iterations_done >= conditions.max_iterations:
        return StopDecision(
            reason=StopReason.MAX_ITERATIONS,
            detail=f"{iterations_done} iteration(s) run, limit {conditions.max_iterations}",
        )
    if conditions.max_wall_time_min is not None and elapsed_s >= conditions.max_wall_time_min * 60.0:
        return StopDecision(
            reason=StopReason.MAX_WALL_TIME,
            detail=f"{elapsed_s / 60.0:.1f} min elapsed, limit {conditions.max_wall_time_min:g} min",
        )
    return None
