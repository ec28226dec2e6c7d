"""The rules backend's Stage 3 (issue 22): one tuning session of the launch configuration per version.

Stage 2 plans one session (category ``autotune``, the launch configuration), seeded by what the evidence
favours; Stage 3 runs the tuning engine on the workspace and applies the fastest correct configuration, every
candidate recorded with its reason (``tests/data/search``: an interior optimum over two interacting knobs, and
configurations that do not build, hang, crash and give wrong results). The next version's session of the
same kernel serves what the first measured and finds nothing better: the loop stops, converged. A session
killed with SIGKILL resumes from its record without timing again what it measured.
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelopt.actions import LAUNCH_CONFIGURATION, SEARCH_NO_GAIN, ActionCategory
from kernelopt.backends.launch_tuning import CANDIDATE_STATUS, candidate_results
from kernelopt.backends.protocol import StageContext
from kernelopt.backends.rules import RuleImplementer, RulePlanner
from kernelopt.errors import UsageError
from kernelopt.loop.wiring import cpu_timing_summary
from kernelopt.memory.model import CandidateResult, CandidateStatus, GateResult, IterationRecord, PitfallAndFix
from kernelopt.planning.history import build_history
from kernelopt.planning.markdown import parse_plan
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.session import SessionResult, StopReason
from kernelopt.workspace import Workspace

from .data.planning import fakes
from .test_h200_example_evidence import EXAMPLES, evidence

DATA = Path(__file__).parent / "data"
SEARCH = DATA / "search"
A = ActionCategory
# a candidate of tests/data/search answers in milliseconds; the one that hangs is given up after 3 s
QUICK = {"device": "cpu", "bench_repetitions": 2, "bench_timeout_s": 3.0}


def config(bm: int, bn: int) -> str:
    """The test kernel's source at BLOCK_M=bm, BLOCK_N=bn."""
    src = (SEARCH / "kernel.py").read_text()
    src = re.sub(r"^BLOCK_M = \d+", f"BLOCK_M = {bm}", src, count=1, flags=re.M)
    return re.sub(r"^BLOCK_N = \d+", f"BLOCK_N = {bn}", src, count=1, flags=re.M)


def knobs_of(source: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"^(BLOCK_[MN]) = (\d+)", source, flags=re.M)}


# -- the record's entries (pure) ----------------------------------------------------------------------


def test_every_outcome_has_a_record_status_and_the_marks_follow_the_session() -> None:
    assert set(CANDIDATE_STATUS) == set(Outcome)
    results = [
        Result(config={"B": 1}, outcome=Outcome.OK, latency_us=9.0),
        Result(config={"B": 2}, outcome=Outcome.OK, latency_us=5.0, recorded=True),
        Result.failed({"B": 4}, Outcome.OUT_OF_MEMORY, "CUDA out of memory"),
        Result.failed({"B": 8}, Outcome.RUN_TIMEOUT, "no reply within 3 s"),
    ]
    session = SessionResult(
        best_config={"B": 2},
        best_latency_us=5.5,
        current_config={"B": 1},
        current_latency_us=9.5,
        results=results,
        retimed=[Result(config={"B": 2}, outcome=Outcome.OK, latency_us=5.5, retimed=True)],
        evaluations=3,
        served=1,
        budget=4,
        space_size=4,
        wall_s=1.0,
        stop=StopReason.CANDIDATES,
        strategy="local",
    )
    cur, best, oom, hang = candidate_results(session, applied={"B": 2})
    assert cur.current and not cur.chosen and cur.latency_us == 9.0 and cur.status is CandidateStatus.OK
    assert best.chosen and best.served and best.latency_us == 5.5  # the re-timed latency: the session's verdict
    assert oom.status is CandidateStatus.CRASHED and oom.reason == "out_of_memory: CUDA out of memory"
    assert hang.status is CandidateStatus.TIMEOUT and hang.reason == "run_timeout: no reply within 3 s"
    kept = candidate_results(session, applied={"B": 1})
    assert kept[0].chosen and kept[0].current and not kept[1].chosen


# -- Stage 2: one session of the launch configuration -------------------------------------------------


def test_matmul_on_the_h200_plans_one_session_seeded_toward_larger_tiles(ws_root: Path) -> None:
    """The recorded H200 profile of examples/matmul (small tiles, tensor cores): on-chip bound, tiles grow."""
    folder = EXAMPLES / "matmul"
    ws = Workspace.create(
        "matmul",
        kernel=folder / "kernel.py",
        reference=folder / "reference.py",
        root=ws_root,
        task_card=folder / "README.md",
    )
    summary = evidence("matmul")
    assert summary.kernels[0].findings[0].rule_id == "nv.onchip_bandwidth_bound"
    plan = RulePlanner({"knob_only": True}).plan(StageContext(workspace=ws, version=1, summary=summary)).plan
    assert plan is not None and plan.action_category is LAUNCH_CONFIGURATION and plan.is_tuning_session()
    assert {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages"} <= set(plan.targets)
    assert plan.current_values["BLOCK_M"] == 32 and plan.parameters == {} and plan.base_kernel_sha256
    assert "the evidence favours tiling" in plan.action and "onchip_bandwidth_bound" in plan.evidence[0]
    assert parse_plan(ws.plan_path(1).read_text()) == plan


def test_a_category_waits_until_another_one_changes_the_kernel() -> None:
    """The history of older records with candidate sets (they still read the same way)."""

    def sweep(n: int, cat: A, result: GateResult, chosen_current: bool) -> IterationRecord:
        r = IterationRecord(version=f"v{n}")
        r.optimization.action_category = cat
        r.quality_gate.result = result
        r.candidates = [
            CandidateResult(parameters={"BLOCK_M": 16}, status=CandidateStatus.OK, latency_us=5.0, current=True),
            CandidateResult(parameters={"BLOCK_M": 32}, status=CandidateStatus.OK, latency_us=4.0),
        ]
        r.candidates[0 if chosen_current else 1].chosen = True
        return r

    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    no_gain = sweep(1, A.TILING, GateResult.FAIL, chosen_current=True)
    h = build_history([v0, no_gain])
    assert "the fastest candidate (4 us) beat the current configuration (5 us) by less" in h.waiting[A.TILING]
    moved = sweep(2, A.NUM_WARPS, GateResult.PASS, chosen_current=False)
    moved.performance.comparison_with_previous.verdict = "improvement"
    assert A.TILING not in build_history([v0, no_gain, moved]).waiting  # eligible again


# -- Stage 2 + 3 on the CPU: the optimum in one version, then converged ------------------------------


def _bowl(root: Path, start: tuple[int, int] = (16, 256)) -> Workspace:
    card = root / "bowl_README.md"
    card.write_text("---\nname: bowl\n---\nA CPU stand-in for a tiled kernel.\n")
    kernel = root / "bowl_kernel.py"
    kernel.write_text(config(*start))
    return Workspace.create("bowl", kernel=kernel, reference=SEARCH / "reference.py", root=root, task_card=card)


def _record(ws: Workspace, n: int, plan, out) -> IterationRecord:  # type: ignore[no-untyped-def]
    rec = IterationRecord(version=f"v{n}")
    rec.optimization.action_category = plan.action_category
    rec.optimization.knob_changes = {k: list(v) for k, v in out.knob_changes.items()}
    rec.candidates = out.candidates
    rec.quality_gate.result = GateResult.PASS if out.changed else GateResult.FAIL
    if out.no_gain:  # as the loop records a session that ran and kept nothing
        rec.pitfalls_and_fixes = [
            PitfallAndFix(
                error_type=SEARCH_NO_GAIN, error_message=out.error or "", root_cause="", fix_applied="", lesson=""
            )
        ]
    if out.changed:
        rec.performance.latency_us = next(c.latency_us for c in out.candidates if c.chosen)
        rec.performance.comparison_with_previous.verdict = "improvement"
    ws.memory.write(rec)
    return rec


@pytest.mark.timeout(180)
def test_one_session_reaches_the_interior_optimum_and_the_next_one_converges(ws_root: Path) -> None:
    """From the corner BLOCK_M=16, BLOCK_N=256: every configuration that fits the default budget (24 of 25)
    in V1, the bad ones recorded with their reasons, the optimum 64 x 32 applied; V2's session serves V1's
    measurements and keeps nothing; V3 is not planned."""
    ws = _bowl(ws_root)
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    v0.performance.latency_us = 5000.0
    ws.memory.write(v0)
    records = [v0]
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    implementer = RuleImplementer({**QUICK, "strategy": "exhaustive", "budget": 25})
    outs = []
    for n in (1, 2, 3, 4):
        summary = cpu_timing_summary(ws, n)
        planned = planner.plan(StageContext(workspace=ws, version=n, summary=summary, history=list(records)))
        if planned.plan is None:
            break
        assert planned.plan.action_category is LAUNCH_CONFIGURATION
        out = implementer.implement(StageContext(workspace=ws, version=n, summary=summary, plan=planned.plan))
        outs.append(out)
        records.append(_record(ws, n, planned.plan, out))
    kept = [
        (o.knob_changes, o.error, [(c.parameters, c.latency_us, c.served) for c in o.candidates if c.chosen])
        for o in outs
    ]
    # V1 applies the optimum and V2 keeps nothing. On a loaded machine V1's re-timing can pick a neighbour,
    # and a later session then moves on from V1's own measurements (seen twice: CI once took V3 to keep
    # nothing; a full run here once stopped converged right after V2 moved). Either way no session after V1
    # times anything again but the one that crashed (a worker crash may be the machine's, so V2 measures it
    # once again; crashing again, it is served from then on), and the planner ends converged within three
    # sessions.
    assert len(outs) in (2, 3), kept
    first, last = outs[0], outs[-1]
    again = [c.parameters for o in outs[1:] for c in o.candidates if not c.served]
    assert again == [{"BLOCK_M": 16, "BLOCK_N": 16}], kept
    by = {(c.parameters["BLOCK_M"], c.parameters["BLOCK_N"]): c for c in first.candidates}
    chosen = next(k for k, c in by.items() if c.chosen)
    # the optimum 64 x 32 (1.0 ms), or on a loaded machine one of its neighbours (1.2-1.4 ms): the fastest
    # correct candidate as the session re-timed it is what was applied
    assert chosen in {(64, 32), (64, 16), (128, 32), (32, 32), (64, 64)}, chosen
    assert (by[chosen].latency_us or 0.0) < (by[(16, 256)].latency_us or 0.0)  # re-timed together
    assert (
        first.changed
        and first.checked
        and first.knob_changes == {"BLOCK_M": (16, chosen[0]), "BLOCK_N": (256, chosen[1])}
    )
    moved = [o for o in outs if o.changed]
    applied = next(c for c in moved[-1].candidates if c.chosen).parameters
    assert (applied["BLOCK_M"], applied["BLOCK_N"]) in {(64, 32), (64, 16), (128, 32), (32, 32), (64, 64)}, kept
    assert knobs_of(ws.kernel_py.read_text()) == {"BLOCK_M": applied["BLOCK_M"], "BLOCK_N": applied["BLOCK_N"]}
    assert len(by) == 25 and sum(c.chosen for c in first.candidates) == 1 and by[(16, 256)].current
    assert by[(128, 256)].status is CandidateStatus.COMPILE_FAILED and "ptxas error" in (by[(128, 256)].reason or "")
    assert by[(256, 16)].status is CandidateStatus.TIMEOUT and "no reply within 3 s" in (by[(256, 16)].reason or "")
    assert by[(16, 16)].status is CandidateStatus.CRASHED and "SIGSEGV" in (by[(16, 16)].reason or "")
    assert by[(256, 32)].status is CandidateStatus.WRONG_RESULT
    assert "differs from the reference" in (by[(256, 32)].reason or "")
    # V2 tunes the new kernel.py: the same kernel apart from its knobs, every candidate served (the crash once
    # measured again in V2), nothing gained
    if not last.changed:
        served = 24 if last is outs[1] else 25
        assert (
            last.no_gain and "kept nothing" in (last.error or "") and f"{served} from the record" in (last.error or "")
        )
    assert planned.plan is None and (planned.reason or "").startswith("converged: the launch configuration")


@pytest.mark.timeout(180)
def test_the_loop_reaches_the_large_block_then_stops_converged(
    ws_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's CPU example with the real backends: V1 tunes BLOCK up, V2 keeps nothing and the loop stops;
    each session says where it is (every round here; every 15 s in a real run)."""
    from kernelopt.backends import launch_tuning
    from kernelopt.cli.app import main

    monkeypatch.setattr(launch_tuning, "PROGRESS_EVERY_S", 0.0)
    # room for two more versions than an idle machine needs (V1 tunes, V2 keeps nothing): at load 17 a later
    # session's pick passed the gate's side-by-side timing by the noise twice and the loop stopped at a limit of 4
    # (max_iterations) before its session kept nothing; the stop asserted below is still convergence
    args = ["optimize", str(DATA / "loop"), "--root", str(ws_root), "--device", "cpu", "--max-iters", "6"]
    assert main([*args, "-I", "bench_repetitions=5", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    # the fresh-user trial of 2026-12-04 saw 4.5 minutes of Stage 3 without a line
    err = " ".join(captured.err.split())  # the console wraps long lines
    # the loop's two SHAPES entries: the best is their sum, and says so (newuser18's n117)
    assert re.search(
        r"V1 tuning: \d+ of 9 candidates, first-round best \S+ us for its 2 shapes together \(BLOCK=\d+\)", err
    ), captured.err
    # the loop's session writes the table `kernelopt tune` writes, from the one writer (claims21 w7), named for its
    # version so that V2's session in the same folder leaves it as V1 measured it (late26 z41)
    table = Path(re.search(r"V1 tuning: the session's candidates as a table: (\S+candidates_v1\.csv)", err).group(1))  # type: ignore[union-attr]
    rows = list(csv.DictReader(table.read_text().splitlines()))
    assert list(rows[0])[:6] == [
        "evaluation",
        "BLOCK",
        "outcome",
        "latency_us",
        "latency_us n=4096",
        "latency_us n=1000",
    ]
    assert len({r["BLOCK"] for r in rows}) == len(rows) == 9
    assert {r["from_record"] for r in rows} == {"False"}  # V1's own timings, after V2's session served its from them
    stop, detail = data["stop"]["reason"], data["stop"]["detail"]
    if stop == "no_new_plan":
        # the last session's pick lost the gate's side-by-side timing on the noisy CPU and was reverted: the
        # same kernel.py is not tuned twice, which is the same convergence, said by the planner
        assert detail.startswith("converged: the launch configuration of this kernel.py was tuned in"), detail
        assert "further gains need a code change" in detail
    else:
        assert stop == "converged", data["stop"]
        assert detail.startswith("the launch configuration has converged") and "kept nothing" in detail
        assert "further gains need a code change (--implementer agent-cli or llm-api)" in detail
        # optimize's own words agree with the report's: the last version converged, no kernel failed (newuser19 n125)
        last_row = data["versions"][-1]
        assert last_row["result"] == "FAIL" and last_row["converged"] and data["converged"] == 1, data["versions"]
        assert re.search(rf"{last_row['version'].upper()} converged \(the tuning session", err), captured.err
        assert not re.search(rf"{last_row['version'].upper()} FAIL", err), captured.err
    ws = Workspace(Path(data["workspace"]))
    records = list(ws.memory.records())[1:]
    passed = [r for r in records if r.quality_gate.result is GateResult.PASS]
    assert passed and all(r.optimization.action_category is LAUNCH_CONFIGURATION for r in records)
    assert passed[0].optimization.knob_changes["BLOCK"][1] >= 1024 and len(passed[0].candidates) == 9
    assert int(re.search(r"^BLOCK = (\d+)", ws.kernel_py.read_text(), re.M).group(1)) >= 1024  # type: ignore[union-attr]
    last = records[-1]  # the last session served every candidate an earlier one measured
    assert last.quality_gate.result is GateResult.FAIL and any(c.served for c in last.candidates)


@pytest.mark.timeout(120)
def test_a_session_killed_with_sigkill_resumes_without_timing_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "loop"
    folder.mkdir()
    for name in ("kernel.py", "reference.py"):
        (folder / name).write_text((DATA / "loop" / name).read_text())
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cpu"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # 60 repetitions a candidate: slow enough that the kill lands inside the session
    slow = [*argv, "--repetitions", "60", "--dry-run"]
    proc = subprocess.Popen(slow, start_new_session=True, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    records: list[Path] = []
    while time.monotonic() < deadline and proc.poll() is None:
        records = list(folder.glob(".kernelopt/tune/*/record.jsonl"))
        if records and len(records[0].read_text().splitlines()) >= 3:  # the header and two results
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the session and its bench worker, in the middle of the session
    proc.wait()
    assert records, "the session was killed before it recorded anything"
    measured = len(records[0].read_text().splitlines()) - 1
    assert 2 <= measured < 9
    # the rerun times the rest with 3: the repetitions are no part of the session's key (what its measurements
    # depend on, tuning.folder.session_parts), so the record serves the killed run's results all the same. The
    # rerun is the CLI's main in this process (the kill needs a process of its own; the resume does not): its
    # workers fork from this process's fork server instead of a new child's (torch imported again)
    from kernelopt.cli.app import main

    capsys.readouterr()
    assert main(["tune", str(folder), "--device", "cpu", "--repetitions", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["served"] == measured and doc["evaluations"] == 9 - measured  # nothing measured twice
    assert doc["record"] == str(records[0])


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_engine_tunes_a_triton_kernel_on_the_gpu(tmp_path: Path) -> None:
    """examples/elementwise: a session of eight candidates compiled in parallel and timed on the GPU."""
    import shutil

    from kernelopt.tuning.folder import TuneRequest, prepare_folder, tune_folder

    folder = Path(shutil.copytree(EXAMPLES / "elementwise", tmp_path / "elementwise"))
    tuning = tune_folder(prepare_folder(TuneRequest(folder=folder, device="cuda", budget=8)))
    assert tuning.result.evaluations == 8
    assert all(r.outcome is Outcome.OK for r in tuning.result.results), [r.reason for r in tuning.result.results]
    assert all(r.compile_s is not None for r in tuning.result.results)


def test_one_discovery_serves_the_loop_and_kernelopt_tune() -> None:
    """Every knob ``kernelopt tunables`` lists as editable in the corpus is a knob of some launch's space
    (the autotune lists built by code are read by importing the file: tests/test_tunables.py)."""
    from kernelopt.tunables import discover

    for path in sorted((DATA / "tunables" / "corpus").glob("*.py")):
        found = discover(path)
        listed = {t.name for t in found if t.editable and not t.semantic}
        usable = [t for t in found if t.editable and not t.semantic]
        labels: set[str | None] = {None, *(g for t in usable for g in t.groups)}
        labels |= {f"{t.kernel}.configs" for t in usable if t.kernel}
        covered: set[str] = set()
        for label in labels:
            try:
                covered |= set(space_from_tunables(found, kernel=label).names)
            except UsageError:
                continue  # a group that is not a launch (a heuristics entry of a launch already counted)
        assert listed <= covered, (path.name, sorted(listed - covered))


def test_planning_does_not_import_backends() -> None:
    """Issue 12: the rules planner adapter lives in backends/; planning's own modules import no backend.

    ``planning/stage.py`` (the Stage 2 runner) is the stages package's to move out of planning.
    """
    import ast

    import kernelopt.planning

    folder = Path(kernelopt.planning.__file__).parent
    offenders = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "stage.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.startswith("kernelopt.backends")]
    assert not offenders


@pytest.mark.timeout(180)
def test_ln_bwd2_s_launches_keep_their_identity_across_versions(ws_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32's leftover: launches were matched by a label with a line (``launch _ln_bwd_dx (kernel.py:59)``) and
    sessions by the kernel.py they ran on, so after a kept version (a tuned line added, every launch below it
    moved) the loop tuned ``_ln_bwd_dx`` again, the launch the previous version had just tuned, while
    ``_ln_bwd_dwdb`` waited. A launch is named by its identity now (kernel, ordinal, the function it is written in;
    no line), and its session counts until another launch changes the kernel. ln_bwd2 on the CPU, the real planner,
    each record as the loop writes it (V1's plan and record in the older label form, still read):

    - V1 tunes ``_ln_bwd_dx`` and keeps a line; V2 tunes ``_ln_bwd_dwdb`` (not ``_ln_bwd_dx`` again), keeps nothing;
      V3 confirms ``_ln_bwd_dx`` (not ``_ln_bwd_dwdb``, whose session just kept nothing), keeps nothing; V4:
      converged, naming both;
    - V1 tunes ``_ln_bwd_dx``, keeps nothing; V2 tunes ``_ln_bwd_dwdb`` and keeps a change; V3 tunes ``_ln_bwd_dx``
      again: the other launch changed the kernel."""
    from kernelopt.tunables import apply_source, discover, discover_source
    from kernelopt.tunables.launches import launches, same_launch

    folder = DATA / "breaker4" / "ln_bwd2"
    source = (folder / "kernel.py").read_text()
    dx, dwdb = "launch _ln_bwd_dx in run()", "launch _ln_bwd_dwdb in run()"
    shifted = source.replace("import torch\n", "# two lines more\n\nimport torch\n", 1)
    before = {la.label: la.identity for la in launches(discover_source(source))}
    after = {la.label: la.identity for la in launches(discover_source(shifted))}
    assert list(before.values()) == list(after.values()) == [dx, dwdb] and not set(before) & set(after)
    assert same_launch("launch _ln_bwd_dx (kernel.py:59)", dx) and not same_launch(
        "launch _ln_bwd_dwdb (kernel.py:63)", dx
    )
    tuned = apply_source(source, {"BLOCK_N": 128}, kernel="_ln_bwd_dx").new_source
    assert tuned.count("\n") == source.count("\n") + 1  # a kept line of _ln_bwd_dx moves both launches
    # the planner's discovery read statically (ln_bwd2's launches and knobs are the same; the run a computed
    # block asks for costs a worker a plan, 5 s on a loaded machine)
    monkeypatch.setattr("kernelopt.planning.rules.discover_tunables", lambda path, device=None: (discover(path), None))

    def loop(name: str):
        ws = Workspace.create(name, kernel=folder / "kernel.py", reference=folder / "reference.py", root=ws_root)
        v0 = IterationRecord(version="v0")
        v0.quality_gate.result, v0.performance.latency_us = GateResult.PASS, 5000.0
        ws.memory.write(v0)
        history = [v0]
        planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})

        def plan(n: int):
            ctx = StageContext(workspace=ws, version=n, summary=cpu_timing_summary(ws, n), history=list(history))
            return planner.plan(ctx)

        def record(n: int, launch: str, *, kept: str | None) -> None:
            """Version ``n``'s record: ``kept`` the kernel.py it kept, else its session kept nothing."""
            r = IterationRecord(version=f"v{n}")
            r.optimization.action_category, r.optimization.launch = LAUNCH_CONFIGURATION, launch
            if kept is not None:
                ws.kernel_py.write_text(kept)
                r.quality_gate.result, r.performance.latency_us = GateResult.PASS, 5000.0 - 500 * n
            else:
                r.quality_gate.result = GateResult.FAIL
                r.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_NO_GAIN, error_message="kept nothing")]
            ws.memory.write(r)
            history.append(r)

        return ws, plan, record

    ws, plan, record = loop("kept_first")
    first = plan(1)
    assert first.plan is not None and first.plan.launch == dx and first.plan.untuned_launches == [dwdb], first.reason
    assert parse_plan(ws.plan_path(1).read_text()).launch == dx
    # an older loop wrote the label, with its line, into the plan and the record: still read as _ln_bwd_dx
    old = "launch _ln_bwd_dx (kernel.py:59)"
    ws.plan_path(1).write_text(ws.plan_path(1).read_text().replace(dx, old))
    record(1, old, kept=tuned)
    second = plan(2)
    assert second.plan is not None and second.plan.launch == dwdb, (second.plan, second.reason)
    assert set(second.plan.targets) == {"BLOCK_P", "BLOCK_COL"} and second.plan.untuned_launches == [dx]
    record(2, dwdb, kept=None)
    third = plan(3)
    assert third.plan is not None and third.plan.launch == dx and third.plan.untuned_launches == [], third.plan
    record(3, dx, kept=None)
    fourth = plan(4)
    assert fourth.plan is None and fourth.reason is not None
    assert fourth.reason.startswith("converged: the launch configuration of this kernel.py was tuned launch by launch")
    assert f"{dx} in v3" in fourth.reason and f"{dwdb} in v2" in fourth.reason, fourth.reason

    ws, plan, record = loop("other_changed")
    assert (first := plan(1)).plan is not None and first.plan.launch == dx
    record(1, dx, kept=None)
    assert (second := plan(2)).plan is not None and second.plan.launch == dwdb
    record(2, dwdb, kept=apply_source(source, {"BLOCK_COL": 64}, kernel="_ln_bwd_dwdb").new_source)
    third = plan(3)
    assert third.plan is not None and third.plan.launch == dx and third.plan.untuned_launches == [dwdb], third.plan
