"""Stage 6: the stop decision. Pure: no I/O, no clock.

The launch configuration has *converged* when a tuning session (the rules backend's Stage 3) found nothing
better than the current configuration by the minimum gain: the loop stops there (:func:`converged`), says at
what share of the roofline, and that further gains need a code change.

The default stop condition is the spec's: latency within 90 % of the roofline bound for this problem
size (``StopConditions.roofline_utilization_pct``). The gate computes both bounds once (measured
ceilings and spec peak, :func:`kernelopt.harness.roofline.roofline_bounds`) and stores them in
``performance.roofline``; the stop check reads them and uses the measured bound when it exists (it is
the roof this machine can reach), else the spec bound, else the gate's own figure.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel

from kernelopt.digits import sig, times
from kernelopt.evidence.model import ProfileSummary
from kernelopt.harness.roofline import roofline_bounds
from kernelopt.memory.model import Performance, RooflineBounds
from kernelopt.taskcard import StopConditions

__all__ = ["CODE_CHANGE", "RooflineBounds", "StopDecision", "StopReason", "converged", "decide", "roofline_bounds"]

#: What a converged launch configuration leaves: the backends that write code.
CODE_CHANGE = "further gains need a code change (--implementer agent-cli or llm-api)"


class StopReason(StrEnum):
    """Why the loop stopped."""

    ROOFLINE_UTILIZATION = "roofline_utilization"
    TARGET_LATENCY = "target_latency"
    TARGET_SPEEDUP = "target_speedup"
    TARGET_SPEEDUP_VS_REFERENCE = "target_speedup_vs_reference"
    MAX_ITERATIONS = "max_iterations"
    MAX_WALL_TIME = "max_wall_time"
    NO_NEW_PLAN = "no_new_plan"
    CONVERGED = "converged"  # a tuning session found nothing better: the launch configuration has converged
    FAILURE_BUDGET = "failure_budget"
    STOP_ON_FAILURE = "stop_on_failure"
    BASELINE_FAILED = "baseline_failed"
    AGENT_UNAVAILABLE = "agent_unavailable"  # the agent's infrastructure failed: another version would fail alike


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
    converged_session: str | None = None,
    next_version_min_s: float | None = None,
    speedup_vs_v0: float | None = None,
) -> StopDecision | None:
    """The Stage 6 decision: a reason to stop, or None to run another iteration.

    Goals are checked first (roofline utilization, target latency, speedups), then a converged launch
    configuration, then failures (``--stop-on-failure``, the consecutive-failure budget), then limits
    (iterations, wall time).

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
        converged_session: why the last tuning session kept nothing (its one line), when it found nothing
            better than the current configuration: the launch configuration has converged.
        next_version_min_s: the least wall time another version takes (the last one's outside Stage 3:
            profile, plan, gate, record); with a wall-time limit, a version that cannot end inside it is
            not started.
        speedup_vs_v0: the current kernel's speedup over V0 by the chain of the gates' side-by-side verdicts
            (:func:`~kernelopt.memory.model.speedup_over_v0`), read by ``target_speedup`` before V0's median over its
            own (two gate runs, late46 l160).
    """
    goal = _goal_met(conditions, current, roofline, baseline_latency_us, speedup_vs_v0)
    if goal is not None:
        return goal
    if converged_session is not None:
        return converged(converged_session, roofline)
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
    return _no_time_for_another(conditions, elapsed_s, next_version_min_s)


def _no_time_for_another(
    conditions: StopConditions, elapsed_s: float, next_version_min_s: float | None
) -> StopDecision | None:
    """Stop before a version that would end past the wall-time limit (arguments as :func:`decide`'s)."""
    if conditions.max_wall_time_min is None or not next_version_min_s:
        return None
    left_s = conditions.max_wall_time_min * 60.0 - elapsed_s
    if left_s >= next_version_min_s:
        return None
    return StopDecision(
        reason=StopReason.MAX_WALL_TIME,
        detail=f"{elapsed_s / 60.0:.1f} min elapsed: another version needs at least {next_version_min_s:.0f} s "
        f"(its profile, plan and gate, as long as the last ones), {left_s:.0f} s are left of the "
        f"{conditions.max_wall_time_min:g} min limit",
    )


def _goal_met(
    conditions: StopConditions,
    current: Performance | None,
    roofline: RooflineBounds | None,
    baseline_latency_us: float | None,
    speedup_vs_v0: float | None = None,
) -> StopDecision | None:
    """The first goal the current kernel meets: roofline utilization, target latency, speedup over V0,
    speedup over the reference (arguments as :func:`decide`'s)."""
    lat = current.latency_us if current is not None else None
    if roofline is not None:
        pct, which = roofline.stop_figure()
        # Above 100 % is an accounting or timing error (see compute_utilization), never a reason to stop.
        if pct is not None and conditions.roofline_utilization_pct <= pct <= 100.0:
            return StopDecision(
                reason=StopReason.ROOFLINE_UTILIZATION,
                detail=f"{pct:.1f} % of the roofline bound ({_roofs(roofline, which)}) >= "
                f"{conditions.roofline_utilization_pct:g} %{_achieved(current)}",
            )
    if lat is not None and conditions.target_latency_us is not None and lat <= conditions.target_latency_us:
        return StopDecision(
            reason=StopReason.TARGET_LATENCY,
            detail=f"latency {sig(lat)} us <= target {conditions.target_latency_us:g} us",
        )
    if speedup_vs_v0 is None and lat and baseline_latency_us:
        speedup_vs_v0 = baseline_latency_us / lat
    if conditions.target_speedup is not None and speedup_vs_v0 is not None:
        speedup = speedup_vs_v0
        if speedup >= conditions.target_speedup:
            return StopDecision(
                reason=StopReason.TARGET_SPEEDUP,
                detail=f"speedup over V0 {times(speedup)} >= target {conditions.target_speedup:g}x",
            )
    vs_ref = current.speedup_vs_reference if current is not None else None
    if conditions.target_speedup_vs_reference is not None and vs_ref is not None and vs_ref.eager is not None:
        speedup = vs_ref.eager
        if speedup >= conditions.target_speedup_vs_reference:
            return StopDecision(
                reason=StopReason.TARGET_SPEEDUP_VS_REFERENCE,
                detail=f"speedup over the reference {times(speedup)} >= target "
                f"{conditions.target_speedup_vs_reference:g}x",
            )
    return None


def converged(session: str, roofline: RooflineBounds | None) -> StopDecision:
    """The stop of a converged launch configuration: at what share of the roofline bound (the gate's stored
    figure, as :func:`decide` reads it) the current kernel runs, what the session said, and that the rest
    needs a code change."""
    pct, which = roofline.stop_figure() if roofline is not None else (None, "none")
    at = (
        f"at {pct:.1f} % of the roofline bound ({_roofs(roofline, which)})"
        if pct is not None and roofline is not None
        else "(no roofline bound known)"
    )
    return StopDecision(
        reason=StopReason.CONVERGED,
        detail=f"the launch configuration has converged {at}; {CODE_CHANGE}. {session}",
    )


def _roofs(roofline: RooflineBounds, which: str) -> str:
    """Which bound a percent is of, with its roofs and the bound the version hits (``measured ceilings: measured
    copy 4200 GB/s, fp16 matmul 700.0 TFLOP/s, memory-bound``): the field's terms a stop is said in (newuser19
    n131: "92.3 % of the roofline bound (measured ceilings)" named neither the roof nor the bound)."""
    note = roofline.stop_note()
    return f"{which}: {_CITED.sub('', note)}" if note else which


#: A spec sheet's citation after a figure (`` (NVIDIA H200 ... datasheet (H200 SXM column) <https://...>)``): the
#: record's bound keeps it; a stop's one line does without.
_CITED = re.compile(r" \((?:[^()]|\([^()]*\))*<https?://[^>]+>\)")


def _achieved(current: Performance | None) -> str:
    """The rates the version achieved, as the gate timed them with reference.py's byte and FLOP counts."""
    if current is None:
        return ""
    rates = [f"{sig(v)} {unit}" for v, unit in ((current.bandwidth_gbps, "GB/s"), (current.tflops, "TFLOP/s")) if v]
    return f"; achieved {' and '.join(rates)} (the gate's timing, reference.py's counts)" if rates else ""


#: Stage 1's figures a stop at the roofline is said with: kernelopt's metric name, and its words.
PROFILER_FIGURES = (
    ("dram_throughput_pct", "DRAM throughput", "% of peak"),
    ("sm_throughput_pct", "compute (SM) throughput", "% of peak"),
    ("dram_gbps", "DRAM", "GB/s"),
)


def profiler_figures(summary: ProfileSummary | None, label: str) -> str | None:
    """What the profiler measured of the stopped kernel's dominant launch, each figure with the profiler's own
    metric name (``Nsight Compute on V1's kernel (add_kernel): DRAM throughput 91.2 % of peak
    (dram__throughput.avg.pct_of_peak_sustained_elapsed), ...``); ``None`` for timing-only evidence or none."""
    kernel = summary.primary() if summary is not None and summary.counters_available else None
    if kernel is None:
        return None
    said = [
        f"{words} {sig(m.value)} {unit}" + (f" ({m.source.rsplit(': ', 1)[-1]})" if m.source else "")
        for name, words, unit in PROFILER_FIGURES
        if (m := kernel.metrics.get(name)) is not None and m.value is not None
    ]
    if not said:
        return None
    tool = summary.tool_used.split(" --")[0] if summary is not None else "the profiler"
    return f"{tool} on {label}'s kernel ({kernel.kernel_name}): {', '.join(said)}"
