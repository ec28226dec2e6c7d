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


def test_l271_an_mcp_agent_s_attempts_are_counted_across_its_validate_calls(tmp_path: Path) -> None:
    """l271: each ``validate`` call of an MCP agent whose edit failed its check recorded "implementation attempt 1 of
    3" (the loop sees one call at a time), so V1's record held three first attempts. The server's count of the
    version's repairs before the call (``repairs_used``) is the implementer's ``attempts_before``: the second call's
    failed check is attempt 2 of 3, the third's attempt 3 of 3 with "after 3 attempt(s)"."""
    import pytest

    from kernelopt.agents import drive
    from kernelopt.harness.model import CorrectnessReport, CorrectnessStatus
    from kernelopt.memory.model import PitfallAndFix
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement
    from tests.backends_support import make_plan, make_ws

    ws = make_ws(tmp_path)
    plan = make_plan("block_size", {"BLOCK": 2048})
    told: list[PitfallAndFix] = []

    def check(_ws: object) -> CorrectnessReport:
        return CorrectnessReport(passed=False, status=CorrectnessStatus.FAIL, message="output differs")

    def call(repairs_used: int) -> object:  # as drive.validate builds the agent's implementer for its call
        agent = drive.AgentEdits("BLOCK 2048", repairs=repairs_used < 2, attempts_before=repairs_used)
        agent.edits = {"kernel.py": ws.kernel_py.read_bytes() + b"\n# the agent's edit\n"}
        return run_implement(
            ws,
            1,
            plan,
            agent,
            guard=RunGuard(ws),
            check=check,
            repair_attempts=2,
            history=[],
            summary=None,
            on_failed_attempt=lambda pitfall, _message, _last: told.append(pitfall),
        )

    with pytest.raises(drive._RepairByTheAgent):
        call(1)  # the second call: its failed check goes back to the agent
    res = call(2)  # the third: past its repairs, the version fails
    assert [p.root_cause for p in told] == ["implementation attempt 2 of 3", "implementation attempt 3 of 3"], told
    assert res.reason == "correctness FAIL: output differs after 3 attempt(s)", res.reason


def test_l272_a_stage_1_no_plan_took_gives_its_number_to_the_next_version(ws_root: Path) -> None:
    """l272: a stand-alone ``kernelopt plan WS`` that failed (not logged in, ``NO_NEW_ACTION``) after Stage 1 left
    ``profiles/v1/``, so the next ``optimize`` numbered its version V2 and memory/ held v0 and v2. A number that only
    a profile folder holds (no plan file, no record) is the next version's (``Workspace.iteration_version``), whose
    Stage 1 profiles it again; a number a plan took is never reused."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace
    from tests.loop_fakes import DATA, make_fakes

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    left = ws.profile_dir(1)  # Stage 1 of a stand-alone plan that failed: what it left there (the agent's transcript)
    left.mkdir(parents=True)
    (left / "plan-transcript.txt").write_text("Not logged in\n")
    assert (ws.iteration_version(), ws.next_version()) == (1, 2)
    OptimizeLoop(Workspace(ws.root), make_fakes().collaborators(), LoopRequest(max_iterations=1)).run()
    assert ws.memory.versions() == [0, 1], ws.memory.versions()
    assert not (left / "plan-transcript.txt").exists() and (left / "summary.json").is_file()  # profiled again
    ws.plan_path(2).write_text("a plan that was taken\n")  # a plan's number is used: the next version is V3
    assert ws.iteration_version() == 3


def test_l273_memory_summary_before_v0_says_what_to_call_first(tmp_path: Path) -> None:
    """l273: MCP ``memory_summary`` of a workspace with no version recorded answered ``rows: []`` and no word, where
    ``kernelopt memory summary`` names the command that records V0. The tool's ``note`` says to call ``profile``
    first (it gates and records V0)."""
    from kernelopt.agents import drive
    from kernelopt.memory.model import IterationRecord
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    said = drive.no_rows(ws)  # the note of the server's memory_summary when it has no row
    assert "call profile(workspace) first" in said and "records V0" in said, said
    ws.memory.write(IterationRecord(version="v0", masked=True))
    assert "include_masked=true" in drive.no_rows(ws)
    server = (Path(__file__).parents[1] / "src" / "kernelopt" / "agents" / "mcp_server.py").read_text()
    assert "note=None if rows else drive.no_rows(ws)" in server  # read, not imported (the SDK's import is slow)


def test_l275_agent_install_s_help_ends_with_examples() -> None:
    """l275: ``kernelopt agent install --help`` ended with no example: the examples' hook reached the top-level
    commands only, not a command of the ``agent`` group. It reaches a group's commands now, and ``agent install``'s
    lines are parsed against its options by n144's test (tests/test_newuser20_cases.py)."""
    from kernelopt.cli.app import build_app

    group = next(g for g in build_app().registered_groups if g.name == "agent")
    assert group.typer_instance is not None
    install = next(c for c in group.typer_instance.registered_commands if c.name == "install")
    assert install.epilog is not None and "kernelopt agent install codex --user" in install.epilog, install.epilog


def test_l274_a_reference_too_slow_to_time_keeps_the_kernel_s_passing_check(tmp_path: Path) -> None:
    """l274: ``batch`` under ``TEST_TIMEOUT_SEC=1`` of a correct kernel whose reference takes 0.9 s a call: an ``ERROR``
    row (right: the problem's), "reference.py hangs or is far too slow", and its correct column "n/a" though the check
    had passed. The row keeps the check's verdict and says the time that ran out was the reference's; a reference
    that failed in the check itself still leaves the column unknown."""
    from kernelopt.batch.model import ProblemRow, ProblemStatus
    from kernelopt.batch.rows import validate_row
    from kernelopt.harness.gate import GateReport
    from kernelopt.harness.model import BenchReport, CorrectnessReport, CorrectnessStatus, Culprit
    from kernelopt.memory.model import GateResult, IterationRecord

    slow = (
        "timing: timing of case 0 [reference] ran past the per-case limit of 1 s; reference.py hangs or is far too slow"
    )
    bench = BenchReport(ok=False, status=CorrectnessStatus.TIMEOUT_FAIL, message=slow, culprit=Culprit.PROBLEM)

    def row(check: CorrectnessReport, timing: BenchReport | None) -> ProblemRow:
        gate = GateReport(
            result=GateResult.TIMEOUT_FAIL,
            failure_reason=slow,
            record=IterationRecord(version="v0"),
            version=0,
            correctness=check,
            bench=timing,
        )
        return validate_row(ProblemRow(problem="cumsum", folder="/x", status=ProblemStatus.ERROR), gate)

    passed = row(CorrectnessReport(passed=True, status=CorrectnessStatus.PASS, message="2 cases passed"), bench)
    assert passed.status is ProblemStatus.ERROR and passed.correct is True, passed
    assert "the kernel passed its check: the time that ran out was the reference's" in (passed.reason or "")
    raised = CorrectnessReport(
        passed=False, status=CorrectnessStatus.FAIL, message="running the reference raised", culprit=Culprit.PROBLEM
    )
    failed = row(raised, None)
    assert (
        failed.status is ProblemStatus.ERROR
        and failed.correct is None
        and "passed its check" not in (failed.reason or "")
    )
