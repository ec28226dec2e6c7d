"""Stage 6 of the loop: the stop decision (:func:`kernelopt.loop.stop.decide`) and the end of a run."""

from __future__ import annotations

from kernelopt.loop import ending
from kernelopt.loop.journal import IterationState, RunStatus
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.run import LoopRun
from kernelopt.loop.stop import StopDecision, StopReason, decide, profiler_figures
from kernelopt.memory.model import GateResult, IterationRecord, speedup_over_v0
from kernelopt.oneline import one_line
from kernelopt.stages.implement import NO_GAIN


def stop_stage(run: LoopRun, it: IterationState) -> None:
    """Stop (a failed baseline, no new plan, a stop condition) or start the next version."""
    run.emit(EventKind.STAGE_START, f"V{it.version}: stop check")
    if it.version == 0 and it.failure is not None:
        _keep_failed_baseline(run, it.failure.reason)
        finish(run, StopDecision(reason=StopReason.BASELINE_FAILED, detail=it.failure.reason))
        return
    if it.no_plan_reason is not None:
        repeated = ending.drop_repeated_profile(run.ws, it.version)
        if repeated is not None:
            run.emit(EventKind.NOTE, f"V{it.version} not kept: no plan, and its profile was V{repeated}'s again")
        finish(run, StopDecision(reason=StopReason.NO_NEW_PLAN, detail=it.no_plan_reason))
        return
    if it.failure is not None and it.failure.result is GateResult.AGENT_UNAVAILABLE:
        finish(run, StopDecision(reason=StopReason.AGENT_UNAVAILABLE, detail=it.failure.reason))
        return
    no_gain = it.failure is not None and it.failure.error_type == NO_GAIN
    converged = it.failure.reason if it.failure is not None and no_gain else None
    plan = run.plan_of(it.version) if converged is not None else None
    if plan is not None and plan.untuned_launches:  # one launch of several kept nothing: the next one is tuned
        run.emit(
            EventKind.NOTE,
            f"V{it.version}: next, a session of {plan.untuned_launches[0]} (still to tune: no session of it kept "
            "nothing since the kernel last changed)",
        )
        converged = None
    decision = decide_stop(
        run,
        last_failed=it.failure is not None,
        converged_session=converged,
        next_version_min_s=next_version_min_s(run, it),
        profiled=it.version if it.failure is not None and it.version > 0 else None,
    )
    if decision is not None:
        finish(run, decision)
        return
    run.emit(EventKind.STAGE_END, f"V{it.version}: continue", stage=Stage.STOP)
    run.new_iteration(run.ws.iteration_version(), Stage.PROFILE, good=run.last_good_version())


#: The baseline's stage whose cost a later version's stage has at least.
_BASELINE_OF = {Stage.PROFILE.value: Stage.BASELINE_PROFILE.value, Stage.GATE.value: Stage.BASELINE_GATE.value}


def next_version_min_s(run: LoopRun, it: IterationState) -> float:
    """What another version costs outside Stage 3 (a tuning session fits itself to the time left, the rest
    does not): each of ``it``'s profile, plan, gate and record stages, where a profile or gate costs at
    least the baseline's of this run. A profile served again from an earlier version takes a second, the
    next one after a change as long as the baseline's (H200, 2026-12-04: linear_bf16's V2 was started on V1's
    1 s profile, profiled for 14 s and ended 25 s past the limit)."""
    total = 0.0
    for stage, seconds in it.stage_seconds.items():
        if stage == Stage.IMPLEMENT.value:
            continue
        baseline = run.state.stage_seconds.get(_BASELINE_OF.get(stage, ""), 0.0)
        total += max(seconds, baseline)
    return total


def decide_stop(
    run: LoopRun,
    *,
    last_failed: bool,
    converged_session: str | None = None,
    next_version_min_s: float | None = None,
    profiled: int | None = None,
) -> StopDecision | None:
    """The stop conditions checked against the last good version; None: go on. ``converged_session``: why the
    tuning session of the iteration that just ended kept nothing (the launch configuration has converged);
    ``next_version_min_s``: the least wall time another version takes (see :func:`~kernelopt.loop.stop.decide`);
    ``profiled``: the iteration that just ended where it failed or kept nothing, so that the kernel its Stage 1
    profiled is the last good version's, else ``None``. A stop at the
    roofline or a converged one adds what the profiler measured of that kernel (V0's own profile for V0), in the
    profiler's metric names (newuser19 n131)."""
    good_n = run.last_good_version()
    good = run.ws.memory.read(good_n) if good_n is not None else None
    v0 = run.ws.memory.read(0) if run.ws.memory.exists(0) else None
    decision = _decide(run, good, v0, last_failed, converged_session, next_version_min_s)
    if decision is None or decision.reason not in (StopReason.ROOFLINE_UTILIZATION, StopReason.CONVERGED):
        return decision
    at = profiled if profiled is not None else 0 if good_n == 0 else None
    said = profiler_figures(run.summary_of(at), f"V{good_n}") if at is not None else None
    return decision.model_copy(update={"detail": f"{decision.detail}; {said}"}) if said else decision


def _decide(
    run: LoopRun,
    good: IterationRecord | None,
    v0: IterationRecord | None,
    last_failed: bool,
    converged_session: str | None,
    next_version_min_s: float | None,
) -> StopDecision | None:
    return decide(
        conditions=run.conditions(),
        current=good.performance if good else None,
        roofline=run.roofline(good) if good else None,
        baseline_latency_us=v0.performance.latency_us if v0 else None,
        iterations_done=run.state.iterations_done,
        consecutive_failures=run.state.consecutive_failures,
        last_failed=last_failed,
        stop_on_failure=run.state.settings.stop_on_failure,
        elapsed_s=run.elapsed(),
        converged_session=converged_session,
        next_version_min_s=next_version_min_s,
        speedup_vs_v0=speedup_over_v0(run.records(), good.number) if good else None,
    )


def finish(run: LoopRun, decision: StopDecision) -> None:
    """End the run: kernel.py on the best version (:func:`ending.end_on_best`), the journal finished."""
    ended = ending.end_on_best(run.ws, run.records())
    if ended is not None:
        run.emit(EventKind.COMMITTED, f"{run.ws.log(max_count=1)[0][1]} ({ended[:12]})")
    run.state.stop = decision
    run.state.status = RunStatus.FINISHED
    run.state.current = None
    run.save()
    run.emit(EventKind.STOPPED, f"stopped: {decision.line()}")


def _keep_failed_baseline(run: LoopRun, reason: str) -> None:
    """Commit the gate's record of a baseline that failed, so the workspace is left clean and the
    evidence in its history (idempotent: nothing to commit after a resume). Its subject is not a
    ``V0:`` one: the next run gates the baseline again, and that commit is V0."""
    rel = "memory/v0.json"
    if run.ws.memory.exists(0) and run.ws.repo.git.status("--porcelain", "--", rel).strip():
        run.ws.commit([rel], f"baseline check failed: {one_line(reason, 160)}")
