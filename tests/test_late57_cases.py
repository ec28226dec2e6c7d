"""late57's cases: fresh28's leftovers on the agent path (docs/faults.md, "fresh28's agent-path leftovers")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace


def test_l270_a_version_whose_edit_failed_its_check_did_not_try_its_action(tmp_path: Path) -> None:
    """l270: an MCP agent's V1 (`BLOCK=1024`, an edit that also scaled the output) failed its check past its repairs,
    and V2's plan `BLOCK=1024` was refused, "already tried in v1": the action was never gated or timed, and no MCP
    tool masks a version, so the right action was lost to a wrong edit. A version whose implementation failed its
    own check no longer counts its action as tried (the repeated-plan check and the planners' history, one rule), its
    record saying what happened; a version that reached the gate and failed there still did try it."""
    from kernelopt.loop.journal import Failure, IterationState
    from kernelopt.loop.record import finalize_record
    from kernelopt.memory.model import GateResult, IterationRecord
    from kernelopt.planning.history import build_history, plan_signature
    from kernelopt.stagenames import Stage
    from kernelopt.stages.plan import tried_signatures
    from tests.backends_support import fake_parse_plan, make_plan, make_ws, write_plan

    ws = make_ws(tmp_path)
    plan = make_plan("block_size", {"BLOCK": 1024})
    write_plan(ws, plan)
    reader = SimpleNamespace(parse=fake_parse_plan)
    sig = plan_signature(plan)

    def failed(stage: Stage) -> IterationRecord:
        it = IterationState(version=1, stage=stage, base_commit=ws.head(), good_version=0)
        it.failure = Failure(
            result=GateResult.FAIL, stage=stage, reason="correctness FAIL: x", error_type="correctness"
        )
        record = finalize_record(
            IterationRecord(version="v1"),
            it=it,
            plan=plan,
            summary=None,
            result=GateResult.FAIL,
            failure_reason=it.failure.reason,
            roofline_lines=[],
        )
        ws.memory.write(record)
        return record

    record = failed(Stage.IMPLEMENT)
    lesson = record.pitfalls_and_fixes[-1].lesson or ""
    assert "implementation" in lesson and "not judged" in lesson and "may be planned again" in lesson, lesson
    assert record.quality_gate.result is GateResult.FAIL  # the record still says what happened
    assert sig not in tried_signatures(ws, reader, before=2)
    assert not build_history([record], {"v1": plan}).was_tried(sig)
    gated = failed(Stage.GATE)  # failed at the gate: its action was judged
    assert tried_signatures(ws, reader, before=2).get(sig) == 1
    assert build_history([gated], {"v1": plan}).was_tried(sig)
