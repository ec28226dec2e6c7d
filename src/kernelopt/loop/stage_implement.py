"""Stage 3 of the loop: the stage runner's :func:`~kernelopt.stages.implement.run_implement`, journaled.

The correctness check it runs is itself guarded (it may write nothing in the workspace); a passing
candidate is kept aside (:mod:`.candidate`) and its Stage 3 record written before the gate runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernelopt.errors import KerneloptError
from kernelopt.harness.model import CorrectnessReport
from kernelopt.loop import candidate
from kernelopt.loop.journal import ImplementNote, IterationState
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.record import stage3_record
from kernelopt.loop.run import LoopRun
from kernelopt.memory.model import GateResult, PitfallAndFix
from kernelopt.planning.plan import Plan
from kernelopt.stages import guard
from kernelopt.stages.implement import ImplementResult, run_implement
from kernelopt.workspace import Workspace


class CheckWroteError(KerneloptError):
    """The Stage 3 correctness check wrote into the workspace (reverted); the iteration fails."""


def implement_stage(run: LoopRun, it: IterationState) -> None:
    """Implement the plan of ``it.version``: on to the gate, or to the record stage on a failure."""
    run.enter(it)
    n = it.version
    plan = run.plan_of(n)
    if plan is None:
        run.fail(it, f"{run.ws.plan_path(n).name} is missing or unreadable", error_type="invalid_plan")
        return

    def failed_attempt(pitfall: PitfallAndFix, message: str, last: bool) -> None:
        it.pitfalls.append(pitfall)
        run.save()
        run.emit(EventKind.WARNING, f"V{n}: {message}" + ("" if last else "; repairing"))

    try:
        result = run_implement(
            run.ws,
            n,
            plan,
            run.implementer,
            guard=run.guard,
            check=_checked_correctness(run, it),
            summary=run.summary_of(n),
            history=run.records(),
            repair_attempts=run.state.settings.repair_attempts,
            on_failed_attempt=failed_attempt,
            wall_left_s=run.wall_left_s(),
            note=lambda line: run.emit(EventKind.NOTE, f"V{n} {line}"),
        )
    except CheckWroteError as exc:
        run.fail(it, exc.message, error_type="write_violation")
        return
    for who, tokens in result.tokens:
        run.note_tokens(it, who, tokens)
    if not result.ok:
        _failed(run, it, result)
        return
    it.implement = _note(result)
    candidate.keep(run.ws, run.journal.candidate_dir(it.version), it)
    write_stage3_record(run, it, plan)
    run.advance(it, Stage.GATE)


def write_stage3_record(run: LoopRun, it: IterationState, plan: Plan) -> None:
    run.ws.memory.write(stage3_record(it, plan))


def _failed(run: LoopRun, it: IterationState, result: ImplementResult) -> None:
    if result.outcome is not None and result.outcome.candidates:
        # a measured tuning session: its results are the record's, even when nothing won
        it.implement = ImplementNote(
            description=result.outcome.error or result.reason or "",
            candidates=list(result.outcome.candidates),
        )
    run.fail(
        it,
        result.reason or "the implementer failed",
        error_type=result.error_type or "implementer_error",
        result=result.result or GateResult.FAIL,
    )


def _note(result: ImplementResult) -> ImplementNote:
    """What the journal keeps of a passing implementation."""
    outcome = result.outcome
    return ImplementNote(
        description=outcome.description if outcome else "",
        knob_changes={k: [_plain(v) for v in pair] for k, pair in (outcome.knob_changes if outcome else {}).items()},
        knob_overrides=dict(outcome.knob_overrides) if outcome else {},
        attempts=result.attempts,
        rel_err=result.rel_err,
        candidates=list(outcome.candidates) if outcome else [],
    )


def _checked_correctness(run: LoopRun, it: IterationState) -> Callable[[Workspace], CorrectnessReport]:
    """The gate's correctness check, itself guarded: it may write nothing in the workspace."""

    def check(ws: Workspace) -> CorrectnessReport:
        before = guard.snapshot(ws.root)
        report = run.gate.check_correctness(ws)
        violations = run.guarded(it, before, [], "correctness check")
        if violations:
            raise CheckWroteError(f"the correctness check wrote into the workspace: {', '.join(violations)}")
        return report

    return check


def _plain(value: Any) -> str | int | float | None:
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)
