"""Stage 5's record content: the gate's measurements plus plan, evidence, verdict, pitfalls. Pure.

Applying it twice gives the same record (a resumed record stage may run it again): lists are merged
without duplicates, fields are set, never appended blindly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

from kernelopt.actions import SEARCH_LIMIT_SHORT, SEARCH_NO_GAIN, SEARCH_TOO_NOISY
from kernelopt.backends.protocol import AGENT_UNFINISHED
from kernelopt.evidence.model import ProfileSummary
from kernelopt.loop import commits
from kernelopt.loop.journal import IterationState
from kernelopt.loop.protocols import Stage
from kernelopt.memory.model import (
    CorrectnessStatus,
    GateResult,
    IterationRecord,
    PitfallAndFix,
    QualityGate,
    version_label,
)
from kernelopt.planning.history import IMPLEMENTATION_CHECK_FAILED
from kernelopt.planning.plan import Plan

T = TypeVar("T")
BASELINE_ACTION = "baseline (the kernel as given)"
MAX_OPEN_DIRECTIONS = 8


def fill_plan(record: IterationRecord, plan: Plan | None, it: IterationState) -> None:
    """``optimization`` and ``search_log`` from the plan; knob changes as Stage 3 applied them."""
    if plan is None:
        return
    o = record.optimization
    o.action_category = plan.action_category
    o.action_description = plan.action
    o.expected_impact = plan.expected_impact
    o.risks_and_rollback = plan.risks_and_rollback
    o.launch = plan.launch
    if it.implement is not None and it.implement.knob_changes:
        o.knob_changes = {k: list(v) for k, v in it.implement.knob_changes.items()}
    if it.implement is not None and it.implement.candidates:
        record.candidates = list(it.implement.candidates)
    if it.implement is not None and it.implement.knob_overrides:
        o.knob_overrides = dict(it.implement.knob_overrides)
    record.search_log = list(plan.search_log)


def fill_evidence(record: IterationRecord, summary: ProfileSummary | None, plan: Plan | None) -> None:
    """``profile_evidence`` from Stage 1's summary; the chain is the plan's evidence lines when it has them."""
    if summary is None:
        return
    pe = record.profile_evidence
    pe.tool_used = summary.tool_used
    if not summary.counters_available:
        pe.tool_used += f" (timing-only: {summary.counters_unavailable_reason or 'counters unavailable'})"
    pe.evidence_summary = commits.bottleneck_evidence(summary, plan.action_category if plan is not None else None)
    k = summary.primary()
    pe.bottleneck_type = k.bottleneck.value if k else None
    chains = list(plan.evidence) if plan is not None and plan.evidence else []
    if not chains and k is not None:
        chains = [f.chain() for f in k.findings]
    pe.evidence_chain = chains


def stage3_record(it: IterationState, plan: Plan) -> IterationRecord:
    """memory/v<N>.json as soon as the edit is known (spec, Stage 3): optimization and correctness."""
    record = IterationRecord(version=version_label(it.version))
    fill_plan(record, plan, it)
    record.correctness.status = CorrectnessStatus.PASS
    if it.implement is not None:
        record.correctness.rel_err = it.implement.rel_err
    return record


def _lesson(error_type: str, sig: str, *, planned: bool, stage: Stage | None = None) -> str:
    """What a failed version teaches, by how it failed: with no plan (the planner's output refused, the
    planner writing outside its file) no action was tried, so none is to avoid; a tuning session that kept
    nothing has converged, one too noisy to rank measured no order (the next version may tune again), one whose
    every candidate, the kernel as written too, ran past its time limit met the machine's pace (the same, with more
    time); an agent
    that answered but did not finish by its limit (calling tools, or stalled) wants more time or a smaller step
    (d33, n155); an implementation that failed its own check judged no action (late57 l270: it may be planned again,
    :func:`~kernelopt.planning.history.never_judged`); anything else is not repeated."""
    if error_type == AGENT_UNFINISHED:  # a model calling tools until its limit: no setup problem (d33)
        what = f"this action{sig}" if planned else "the plan"
        return (
            f"the agent answered but did not finish {what} in its limit (it kept calling tools, or stalled): give it "
            "more time, or a smaller step"
        )
    if not planned:
        return "no action was planned (the planner's work was refused): nothing was tried; plan again"
    if (error_type, f"failed at stage {stage.value}" if stage else None) == IMPLEMENTATION_CHECK_FAILED:
        return (
            f"the implementation of this action{sig} failed its correctness check, so the action itself was not "
            "judged (nothing was gated or timed): it may be planned again with a right implementation"
        )
    if error_type == SEARCH_NO_GAIN:
        return f"this action{sig} ran and kept nothing: the launch configuration has converged"
    if error_type == SEARCH_TOO_NOISY:
        return f"this action{sig} was too noisy to rank: nothing was found better or worse; it may run again"
    if error_type == SEARCH_LIMIT_SHORT:
        return (
            f"this action{sig} timed nothing: every candidate, the kernel as written too, ran past its time limit, "
            "which is short for this machine's pace (no verdict on the action nor the kernel); it may run again "
            "with more time (optimize -I bench_timeout_s=SECONDS)"
        )
    return f"this action{sig} failed as planned: do not repeat it unchanged"


def _merge(old: list[T], new: list[T]) -> list[T]:
    return [x for x in old if x not in new] + new


def finalize_record(
    record: IterationRecord,
    *,
    it: IterationState,
    plan: Plan | None,
    summary: ProfileSummary | None,
    result: GateResult,
    failure_reason: str | None,
    roofline_lines: list[str],
    now: datetime | None = None,
) -> IterationRecord:
    """The final record of version ``it.version`` (``record`` is what the gate wrote, or a fresh one).

    Args:
        record: the record to complete (modified and returned).
        it: the iteration (implementation notes, failure, pitfalls met on the way, notes).
        plan: the iteration's plan, when it has one.
        summary: its Stage 1 evidence.
        result: the gate verdict (PASS, FAIL, TIMEOUT_FAIL).
        failure_reason: why it failed, or None.
        roofline_lines: both roofline bounds in words (passing versions), for ``experience.notes``.
        now: the timestamp (default: now, UTC).
    """
    record.timestamp = now or datetime.now(UTC)
    fill_plan(record, plan, it)
    fill_evidence(record, summary, plan)
    if it.version == 0 and not record.optimization.action_description:
        record.optimization.action_description = BASELINE_ACTION
    record.quality_gate = QualityGate(result=result, failure_reason=failure_reason)
    pitfalls = list(it.pitfalls)
    if it.failure is not None:
        params = f" {dict(plan.parameters)}" if plan is not None and plan.parameters else ""
        sig = f" ({plan.action_category.value}{params})" if plan is not None else ""
        unavailable = it.failure.result is GateResult.AGENT_UNAVAILABLE
        pitfalls.append(
            PitfallAndFix(
                error_type=it.failure.error_type,
                error_message=it.failure.reason,
                root_cause=f"the agent's infrastructure failed at stage {it.failure.stage.value} "
                "(not the action: it was never tried)"
                if unavailable
                else f"failed at stage {it.failure.stage.value}",
                fix_applied=f"kernel.py restored to V{it.good_version} ({it.base_commit[:12]}); "
                "revert marker committed",
                lesson="make the agent available (login, API key passed on with KERNELOPT_KEEP_ENV, API up, "
                f"time limit), then run again; this action{sig} was not measured and may be planned again"
                if unavailable
                else _lesson(it.failure.error_type, sig, planned=plan is not None, stage=it.failure.stage),
            )
        )
        if it.failure.stage is Stage.IMPLEMENT and it.failure.error_type == "correctness":
            failed = it.failure.result is GateResult.TIMEOUT_FAIL
            record.correctness.status = CorrectnessStatus.TIMEOUT_FAIL if failed else CorrectnessStatus.FAIL
            record.correctness.message = it.failure.reason
    record.pitfalls_and_fixes = _merge(record.pitfalls_and_fixes, pitfalls)
    notes = list(it.notes) + list(roofline_lines)
    if it.implement is not None and it.implement.attempts > 1:
        notes.append(f"correctness passed after {it.implement.attempts} implementation attempts")
    record.experience.notes = _merge(record.experience.notes, notes)
    if result is GateResult.PASS and summary is not None:
        k = summary.primary()
        used = plan.action_category if plan is not None else None
        directions: list[str] = []
        for f in k.findings if k else []:
            for cat in f.action_categories:
                line = f"{cat.value}: {f.inference}"
                if cat != used and line not in directions:
                    directions.append(line)
        record.open_directions = directions[:MAX_OPEN_DIRECTIONS]
    return record
