"""Stage 2 of the loop: the stage runner's :func:`~kernelopt.stages.plan.run_plan`, journaled."""

from __future__ import annotations

from kernelopt.backends.protocol import AGENT_UNAVAILABLE
from kernelopt.loop.journal import IterationState
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.run import LoopRun
from kernelopt.memory.model import GateResult
from kernelopt.oneline import one_line
from kernelopt.stages.allowance import aux_files_of
from kernelopt.stages.plan import PlanVerdict, run_plan


def plan_stage(run: LoopRun, it: IterationState) -> None:
    """Plan version ``it.version``: on to Stage 3, to the record stage on a failure, or to Stage 6 when
    the planner has no new actionable plan."""
    run.enter(it)
    n = it.version
    result = run_plan(
        run.ws,
        n,
        run.planner,
        guard=run.guard,
        reader=run.plan_reader,
        summary=run.summary_of(n),
        history=run.records(),
    )
    it.pitfalls += result.pitfalls
    run.note_tokens(it, "plan", result.tokens)
    for note in result.notes:
        run.emit(EventKind.WARNING, note)
    if result.verdict is PlanVerdict.NO_PLAN:
        it.no_plan_reason = result.reason
        run.advance(it, Stage.STOP)
        return
    if result.verdict is PlanVerdict.FAILED or result.plan is None:
        error_type = result.error_type or "planner_error"
        verdict = GateResult.AGENT_UNAVAILABLE if error_type == AGENT_UNAVAILABLE else GateResult.FAIL
        run.fail(it, result.reason or "the planner failed", error_type=error_type, result=verdict)
        return
    plan = result.plan
    it.aux_files = aux_files_of(plan)
    run.emit(EventKind.NOTE, f"V{n} plan: {plan.action_category.value}: {one_line(plan.action, 100)}")
    run.advance(it, Stage.IMPLEMENT)
