"""Stage 4 of the loop, and V0's baseline gate: the gate's verdict journaled, its record kept."""

from __future__ import annotations

from kernelopt.errors import RecordError
from kernelopt.harness.gate import GateReport
from kernelopt.harness.model import problem_failed_prefix
from kernelopt.loop import ending
from kernelopt.loop.journal import GateNote, IterationState
from kernelopt.loop.protocols import Stage
from kernelopt.loop.run import LoopRun
from kernelopt.loop.stage_implement import write_stage3_record
from kernelopt.memory.model import GateResult
from kernelopt.stages.allowance import may_write


def baseline_gate_stage(run: LoopRun, it: IterationState) -> None:
    """Gate the kernel as given (V0): a baseline that fails stops the run."""
    run.enter(it)
    report = run.gate.validate(run.ws, 0, previous=None, plan=None)
    violations = run.guarded(it, it.snapshot, may_write(it.stage, 0), "gate")
    _keep_gate_record(run, 0, report)
    it.gate = _gate_note(report)
    run.state.reference_latency_us = it.gate.reference_latency_us
    if violations:
        run.fail(it, f"the gate wrote outside its allowance: {', '.join(violations)}", error_type="write_violation")
    elif it.gate.result is not GateResult.PASS:
        why = it.gate.failure_reason or it.gate.result.value
        # reference.py raising at a SHAPES entry is the problem's fault, never the kernel's (as batch says it)
        run.fail(
            it,
            f"{problem_failed_prefix(report.correctness.error_class)}: {why}"
            if report.problem_failed
            else f"the check of the baseline could not run here, not the kernel's fault: {why}"
            if report.checker_failed
            else f"the baseline kernel does not pass the gate: {why}",
            error_type="baseline_failed",
            result=it.gate.result,
        )
    else:
        run.advance(it, Stage.BASELINE_PROFILE)


def gate_stage(run: LoopRun, it: IterationState) -> None:
    """Gate version ``it.version`` against the best version so far: on to the record stage either way."""
    plan = run.plan_of(it.version)
    if plan is None:
        run.enter(it)
        run.fail(it, f"{run.ws.plan_path(it.version).name} is missing or unreadable", error_type="invalid_plan")
        return
    # Rewritten at every entry, so that a gate interrupted half-way never leaves its partial record.
    write_stage3_record(run, it, plan)
    it.snapshot = {}
    run.enter(it)
    previous = ending.gate_previous(run.records(), it.version, it.good_version)  # the best so far
    report = run.gate.validate(run.ws, it.version, previous=previous, plan=plan)
    violations = run.guarded(it, it.snapshot, may_write(Stage.GATE, it.version), "gate")
    _keep_gate_record(run, it.version, report)
    it.gate = _gate_note(report)
    if violations:
        run.fail(
            it,
            f"the gate wrote outside memory/v{it.version}.json: {', '.join(violations)}",
            error_type="write_violation",
        )
    elif it.gate.result is GateResult.PASS:
        run.advance(it, Stage.RECORD)
    else:
        run.fail(
            it,
            it.gate.failure_reason or f"quality gate {it.gate.result.value}",
            error_type="quality_gate",
            result=it.gate.result,
        )


def _keep_gate_record(run: LoopRun, version: int, report: GateReport) -> None:
    """The record the gate returns is the one it wrote; write it when the file lacks its figures."""
    record = report.record
    if record.number != version:
        return
    try:
        on_disk = run.ws.memory.read(version) if run.ws.memory.exists(version) else None
    except RecordError:
        on_disk = None
    if on_disk is None or (on_disk.performance.latency_us is None and record.performance.latency_us is not None):
        run.ws.memory.write(record)


def _gate_note(report: GateReport) -> GateNote:
    return GateNote(
        result=report.result,
        failure_reason=report.failure_reason,
        latency_us=report.latency_us,
        roofline_utilization_pct=report.roofline_utilization_pct,
        speedup_vs_previous=report.speedup_vs_previous,
        reference_latency_us=report.reference_latency_us,
    )
