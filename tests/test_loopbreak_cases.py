"""A new user's loop on multi-shape kernels (issue 32, items 2, 4, 5 and 7; the loopbreak trial of 2026-12-05).

Each test is one case of docs/faults.md, "A new user's loop": what a user met running `optimize`, `validate`,
`batch` and `report` on the kernels of tests/data/loopbreak/ (README there). A defect not fixed yet is a strict
xfail with its reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelopt.memory.model import IterationRecord, Performance, ReferenceSpeedup

# A CPU record of 2026-12-05 (halfrope, `kernelopt batch --device cpu`): a Triton kernel in the interpreter
# against a 19 us reference, its interval spanning 2.9x: the summary called it not reliable, the report printed
# "0.00x (95 % CI 0.000-0.000) ... regression" and the batch table "0.00x*".
NOISY = ReferenceSpeedup(
    eager=0.0007665,
    eager_ci_low=0.0004263,
    eager_ci_high=0.001244,
    eager_p_value=1.55e-14,
    eager_effect_size_d=-5.4,
    eager_verdict="regression",
    eager_latency_us=19.23,
)
DATA = Path(__file__).parent / "data" / "loopbreak"
STEADY = ReferenceSpeedup(eager=1.55, eager_ci_low=1.21, eager_ci_high=1.93, eager_latency_us=6.0)


@pytest.mark.timeout(10)
def test_the_summary_the_report_and_the_batch_table_say_one_headline_against_the_reference() -> None:
    from kernelopt.batch.model import ProblemRow, ProblemStatus
    from kernelopt.batch.rows import figures
    from kernelopt.cli.batch import _speedup
    from kernelopt.cli.optimize import reference_headline
    from kernelopt.report.sections import reference_line

    summary = reference_headline(NOISY) or ""
    assert summary.startswith("1300x slower than the reference (PyTorch eager), not reliable"), summary
    report = reference_line(Performance(latency_us=25_000.0, speedup_vs_reference=NOISY)) or ""
    assert "not reliable: its 95 % interval 804-2350x slower spans more than 2x" in report, report
    assert "0.00x" not in report and "0.000-0.000" not in report
    assert _speedup(NOISY.eager, NOISY.eager_verdict, NOISY.eager_ci_low, NOISY.eager_ci_high) == "0.000767x*?"
    row = ProblemRow(problem="halfrope", folder="/x/halfrope", status=ProblemStatus.PASS)
    noisy_row = figures(row, IterationRecord(version="v0", performance=Performance(speedup_vs_reference=NOISY)))
    assert noisy_row.reason == summary
    # a steady figure keeps its interval everywhere and is no reason
    assert "95 % interval 1.21-1.93x" in (reference_line(Performance(speedup_vs_reference=STEADY)) or "")
    assert _speedup(1.55, "improvement", 1.21, 1.93) == "1.55x*"
    steady_row = figures(row, IterationRecord(version="v0", performance=Performance(speedup_vs_reference=STEADY)))
    assert steady_row.reason is None
    # `kernelopt validate`'s table said "speedup vs reference (eager) 0.001333", no interval, no word of noise
    from kernelopt.cli.validate import _performance_rows
    from kernelopt.harness.gate import GateReport
    from kernelopt.harness.model import CorrectnessReport, CorrectnessStatus
    from kernelopt.memory.model import GateResult

    passed = CorrectnessReport(passed=True, status=CorrectnessStatus.PASS, message="checked")
    record = IterationRecord(version="v0", performance=Performance(latency_us=25_000.0, speedup_vs_reference=NOISY))
    gate = GateReport(result=GateResult.PASS, record=record, version=0, correctness=passed)
    rows = dict((q, v) for q, v in _performance_rows(gate))
    assert rows["speedup vs reference (eager)"].startswith("1300x slower than eager, not reliable: its 95 % ")


@pytest.mark.timeout(10)
def test_a_plan_names_a_computed_block_as_its_computation_not_the_first_shape_s_value() -> None:
    """rownorm (`block = triton.next_power_of_2(n_cols)`, SHAPES of 48, 200 and 100 columns): V1's plan said
    "now BLOCK=64", `current_values: {BLOCK: 64}` and "Rollback: restore `BLOCK` = 64", a literal wrong at 200
    columns."""
    from kernelopt.planning.rules import _shown, knobs_from_tunables
    from kernelopt.vocabulary import COMPUTED

    found = {"name": "BLOCK", "value": 64, "computed": "block = triton.next_power_of_2(n_cols)"}
    (knob,) = knobs_from_tunables([found])
    assert knob.value == 64 and knob.computed == found["computed"]  # the value a run read is kept for the ranking
    assert _shown(knob) == f"{COMPUTED} (block = triton.next_power_of_2(n_cols); 64 at the first SHAPES entry)"
    (literal,) = knobs_from_tunables([{"name": "num_warps", "value": 4}])
    assert _shown(literal) == "4" and literal.computed is None


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


@pytest.mark.timeout(120)
def test_a_reference_that_fails_at_one_shapes_entry_is_bad_input_in_validate_optimize_and_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """refshape (a reference that raises at n=200): `validate` said FAIL (exit 1) and `optimize` "the baseline
    kernel does not pass the gate" (exit 1, a "baseline check failed" commit), blaming a kernel that is right at
    every size, while `tune` said exit 2 naming the entry and `batch` an ERROR of the problem."""
    from kernelopt.cli.app import main
    from kernelopt.workspace import Workspace

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    folder = _copy("refshape", tmp_path)
    ws = Workspace.create("refshape", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    assert main(["validate", str(ws.root), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("kernelopt: error: reference.py fails, not the kernel: "), err[-1]
    assert "case 1 (n=200): the reference raised RuntimeError" in err[-1]
    # batch --optimize runs `kernelopt optimize --json` in a child: it exits 2 with its summary, and the row is
    # the problem's ERROR (before: "kernelopt optimize exited with 2: ...", the loop's summary left unread)
    problems = tmp_path / "problems"
    shutil.copytree(folder, problems / "refshape")
    out = tmp_path / "out"
    assert main(["batch", str(problems), "--optimize", "--max-iters", "1", "--device", "cpu", "--out", str(out)]) == 0
    (row,) = json.loads((out / "batch.json").read_text())["rows"]
    assert row["status"] == "ERROR", row
    assert row["reason"].startswith("the problem's reference failed: correctness: case 1 (n=200): the reference raised")
    summary = json.loads((out / "logs" / "refshape.out").read_text())
    assert summary["stop"]["reason"] == "baseline_failed"
    assert summary["stop"]["detail"].startswith("reference.py fails, not the kernel: "), summary["stop"]["detail"]
    assert summary["versions"][0]["culprit"] == "problem"


@pytest.mark.timeout(10)
def test_a_table_the_loop_writes_is_recorded_as_the_table_and_why_not_as_its_last_row() -> None:
    """rownorm, V1 of `optimize --max-iters 2`: the session wrote `if n_cols <= 48: block = 64 / elif <= 100: 128 /
    elif <= 200: 256`, and the record said `knob_changes: BLOCK [64, 256]`, the report "Knob BLOCK: 64 -> 256",
    the commit "BLOCK computed (...) -> 256", and the candidates "BLOCK=computed -> current, chosen"."""
    from kernelopt.backends.launch_tuning import table_changes
    from kernelopt.loop.commits import change_summary
    from kernelopt.memory.model import Optimization
    from kernelopt.report.model import VersionEntry
    from kernelopt.report.sections import _action_lines

    table = {"rows=8,cols=48": {"BLOCK": 64}, "rows=6,cols=100": {"BLOCK": 128}, "rows=4,cols=200": {"BLOCK": 256}}
    why = "the per-bucket table is 4.1 % faster than the current configuration on rows=4,cols=200"
    changes = table_changes({"BLOCK": (64, 256), "num_warps": (4, 8)}, table, why)
    kept = "per-bucket table (rows=8,cols=48: 64; rows=6,cols=100: 128; rows=4,cols=200: 256; above them the original"
    assert changes["BLOCK"] == (64, f"{kept} computation): {why}")
    assert changes["num_warps"] == (4, 8)  # a knob the table does not hold is its own change
    overrides = {"BLOCK": "block = triton.next_power_of_2(n_cols)"}
    subject = change_summary("autotune", {}, {"BLOCK": list(changes["BLOCK"])}, "", overrides)
    assert subject.startswith(f"autotune: BLOCK computed (block = triton.next_power_of_2(n_cols)) -> {kept}")
    record = IterationRecord(
        version="v1",
        optimization=Optimization(
            action_category="autotune", knob_changes={"BLOCK": list(changes["BLOCK"])}, knob_overrides=overrides
        ),
    )
    lines = _action_lines(VersionEntry(record=record))
    assert f"Knob BLOCK: computed (block = triton.next_power_of_2(n_cols)) -> {kept}" in "\n".join(lines)


@pytest.mark.timeout(60)
def test_tune_refuses_a_v0_that_validate_fails_on_permuted_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """sorted (boundaries sorted by a `get_inputs` that seeds its own generator): `validate` FAILs V0 at seed 1
    and says the seed's inputs were permuted, `optimize` and `batch` stop there; `tune` checked seed 0 only and
    wrote a 4.2x faster kernel.py (the Triton version of the trial) on a V0 the other three refuse. Now the pick
    goes through the gate's own check before it is written, and the line says V0 fails it too."""
    from kernelopt.cli.app import main
    from tests.test_honest15_cases import figures_disagree

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    folder = _copy("sorted", tmp_path)
    before = (folder / "kernel.py").read_text()
    args = ["tune", str(folder), "--device", "cpu", "--budget", "3", "--strategy", "exhaustive", "--json"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)  # honest15: the json's better says what was written, as the verdict does
    assert not doc["better"] and not doc["written"] and figures_disagree(doc) == [], doc
    last = err.strip().splitlines()[-1]
    assert last.startswith("kernelopt: the pick fails the gate's correctness check: case 0 (n=100,m=64), seed 1: ")
    assert "permuted" in last and "kernel.py as it is fails it too" in last, last
    assert (folder / "kernel.py").read_text() == before


@pytest.mark.timeout(60)
def test_the_report_draws_each_version_s_tuning_session_with_each_shape(tmp_path: Path) -> None:
    """`kernelopt report` of a loop whose sessions ran on two or three SHAPES entries: no search plot at all (only
    `kernelopt tune` drew one), and each candidate one latency, the sum over the shapes. Now the record keeps each
    entry's latency (`CandidateResult.latency_us_by_shape`), the candidates say them, and the report draws each
    version's session as `tune` does: the Markdown beside it (`<name>.v1.search.png`), the HTML embedded."""
    pytest.importorskip("matplotlib")
    from kernelopt.backends.launch_tuning import candidate_results
    from kernelopt.report import sections, write_reports
    from kernelopt.report.model import ReportData, VersionEntry
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason

    shapes = {16: {"cols=48": 120.0, "cols=200": 400.0}, 64: {"cols=48": 60.0, "cols=200": 150.0}}
    results = [
        Result(config={"BLOCK": b}, outcome=Outcome.OK, latency_us=sum(by.values()), latency_us_by_shape=by)
        for b, by in shapes.items()
    ]
    results.append(Result(config={"BLOCK": 8}, outcome=Outcome.WRONG_RESULT, reason="wrong on cols=200"))
    session = SessionResult(
        best_config={"BLOCK": 64},
        best_latency_us=210.0,
        current_config={"BLOCK": 16},
        current_latency_us=520.0,
        results=results,
        retimed=[],
        evaluations=3,
        served=0,
        budget=3,
        space_size=3,
        wall_s=1.0,
        stop=StopReason.CANDIDATES,
        strategy="default",
    )
    candidates = candidate_results(session, applied={"BLOCK": 64})
    assert [c.latency_us_by_shape for c in candidates] == [shapes[16], shapes[64], {}]
    data = ReportData(
        name="rownorm",
        root=str(tmp_path),
        versions=[
            VersionEntry(record=IterationRecord(version="v0")),
            VersionEntry(record=IterationRecord(version="v1", candidates=candidates)),
        ],
    )
    md = tmp_path / "report.md"
    written = write_reports(data, markdown=md, html=tmp_path / "report.html")
    png = tmp_path / "report.v1.search.png"
    assert written["search V1"] == png and png.read_bytes().startswith(b"\x89PNG")
    text = md.read_text()
    assert "](report.v1.search.png)" in text
    assert "BLOCK=64 -> 210.0 us (cols=48: 60.00 us; cols=200: 150.0 us) -> chosen" in text, text[
        text.index("**Candidates**") :
    ][:400]
    assert text.count(".search.png") == 1  # V0 ran no session
    # the gate's warnings, first an entry it did not run (examples/softmax on the CPU: the record said so, the
    # report did not)
    skipped = "Triton's interpreter on the CPU: SHAPES entries too large for it (over 2**22) were not run (n=2**28)"
    noisy = [f"case {i} (cols=48), v1: interquartile range is 3{i} % of the median (over 10 %)" for i in range(5)]
    record = IterationRecord(version="v1", performance=Performance(latency_us=5.0, warnings=[*noisy, skipped]))
    lines = sections.version_stories(ReportData(name="x", root=str(tmp_path), versions=[VersionEntry(record=record)]))
    result = lines[0].result
    assert result[-5:] == [
        f"Gate warning: {skipped}",
        *(f"Gate warning: {w}" for w in noisy[:3]),
        "Gate warnings: 2 more in memory/v1.json",
    ], result
    assert (tmp_path / "report.html").read_text().count("tuning session: each SHAPES entry") == 1


@pytest.mark.timeout(30)
def test_a_version_that_ends_with_no_plan_on_the_cpu_s_record_timing_leaves_nothing(tmp_path: Path) -> None:
    """`optimize` run again on a converged CPU workspace (the row norm): each run left an `end of run: profile
    summaries of versions without a commit of their own` commit and `profiles/v<N>/`, though Stage 1 on the CPU
    measures nothing (it reads the last good version's timing from its record) and docs/loop.md says a rerun on
    a converged workspace adds no commit."""
    from kernelopt.loop.ending import drop_repeated_profile, record_timing_of
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, QualityGate
    from kernelopt.workspace import Workspace

    folder = _copy("refshape", tmp_path)
    ws = Workspace.create("rerun", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    ws.memory.write(
        IterationRecord(
            version="v0", quality_gate=QualityGate(result=GateResult.PASS), performance=Performance(latency_us=5.0)
        )
    )
    cpu_timing_summary(ws, 2)
    assert record_timing_of(ws, 2) == 0
    assert drop_repeated_profile(ws, 2) == 0 and not ws.profile_dir(2).exists()
    # the evidence a version measured itself (a profiler's, counters or not) is kept
    measured = ws.profile_dir(3)
    measured.mkdir(parents=True)
    summary = cpu_timing_summary(ws, 3).model_copy(update={"tool_used": "ncu (timing-only)"})
    summary.kernels[0].artifact = "profiles/v3/report.ncu-rep"
    (measured / "summary.json").write_text(summary.model_dump_json())
    assert record_timing_of(ws, 3) is None and drop_repeated_profile(ws, 3) is None and measured.is_dir()
    # a version whose planner left its transcript keeps it: what the agent said is that version's own record
    cpu_timing_summary(ws, 4)
    (ws.profile_dir(4) / "agent_plan.log").write_text("no new plan\n")
    assert record_timing_of(ws, 4) == 0 and drop_repeated_profile(ws, 4) is None
    assert (ws.profile_dir(4) / "agent_plan.log").is_file()


@pytest.mark.timeout(10)
def test_each_progress_event_of_optimize_is_one_line_in_a_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`optimize ... 2>&1 | tee log`: a failure's reason was cut across three to six lines at 100 columns
    ("V1 FAIL at implement: the \\ntuning session of launch ..."), so a log could not be read or grepped by
    line; the summary's own lines were already one each."""
    from kernelopt.cli.optimize import TerminalProgress
    from kernelopt.loop.protocols import EventKind, LoopEvent, Stage

    monkeypatch.delenv("COLUMNS", raising=False)
    reason = "the tuning session of launch _tile_add (kernel.py:21) kept nothing: " + "every value tried " * 12
    progress = TerminalProgress()
    progress.event(LoopEvent(kind=EventKind.WARNING, version=1, stage=Stage.IMPLEMENT, message=reason, elapsed_s=38))
    progress.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].rstrip().endswith(reason.rstrip()), lines


@pytest.mark.timeout(60)
def test_after_a_session_too_noisy_to_rank_the_next_version_tunes_again(ws_root: Path) -> None:
    """two_launch (breaker2), `optimize --max-iters 2` on the loaded machine: V1's session was too noisy to rank
    and was recorded as "the implementer could not apply the plan: ..." (implementer_error, lesson "failed as
    planned: do not repeat it unchanged"); V2 and every later run then stopped with "no new actionable path ...
    not converged: fix what failed and run again", though only a new session on a quieter machine could help."""
    from kernelopt.actions import SEARCH_TOO_NOISY
    from kernelopt.backends.protocol import StageContext
    from kernelopt.backends.rules import RulePlanner
    from kernelopt.loop.record import _lesson
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, PitfallAndFix

    from .data.planning import fakes
    from .test_tuning_rejected import _session_record, _v0

    ws, v0 = _v0(ws_root)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    first = planner.plan(StageContext(workspace=ws, version=1, summary=cpu_timing_summary(ws, 1), history=[v0]))
    assert first.plan is not None
    why = "the tuning session of launch _partial kept nothing: too noisy to rank: ...; time again on a quieter machine"
    v1 = _session_record(1, chosen=None, gate=GateResult.FAIL, reason=why)
    v1.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_TOO_NOISY, error_message=why)]
    ws.memory.write(v1)
    again = planner.plan(StageContext(workspace=ws, version=2, summary=cpu_timing_summary(ws, 2), history=[v0, v1]))
    assert again.plan is not None, again.reason
    assert again.plan.excluding == [] and again.plan.retrying == ["v1"]  # nothing rejected, v1 timed again
    assert "may run again" in _lesson(SEARCH_TOO_NOISY, " (autotune)", planned=True)
    assert "converged" in _lesson("search_no_gain", " (autotune)", planned=True)


@pytest.mark.timeout(60)
def test_no_knob_on_the_cpu_says_the_launch_options_the_interpreter_ignores(tmp_path: Path) -> None:
    """halfrope (its one literal launch argument `num_warps=2`; `HALF=D // 2` computed): `optimize --device cpu`
    stopped with "kernel.py has no tunable knob (a literal launch argument, ...)", though it holds one; the note
    that the interpreter ignores it was made and dropped."""
    from kernelopt.backends.protocol import StageContext
    from kernelopt.backends.rules import RulePlanner
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, QualityGate
    from kernelopt.workspace import Workspace

    from .data.planning import fakes

    folder = _copy("halfrope", tmp_path)
    ws = Workspace.create("halfrope", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    v0 = IterationRecord(
        version="v0", quality_gate=QualityGate(result=GateResult.PASS), performance=Performance(latency_us=5.0)
    )
    ws.memory.write(v0)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    out = planner.plan(StageContext(workspace=ws, version=1, summary=cpu_timing_summary(ws, 1), history=[v0]))
    assert out.plan is None and "kernel.py has no tunable knob" in (out.reason or "")
    assert "on the CPU Triton's interpreter ignores num_stages, num_warps: not planned" in (out.reason or "")
