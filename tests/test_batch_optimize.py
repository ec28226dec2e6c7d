"""``kernelopt batch DIR --optimize``: the loop (the rules backend's Stage 3 is the tuning engine) runs on a
KernelBench-style Triton ``ModelNew`` and a torch-only one, on the CPU, and each row says what the loop
changed (the knob changes of the kept versions) or why nothing changed, in the table, batch.json and
batch.csv. The texts themselves are checked on records built here (:mod:`kernelopt.batch.changes`)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kernelopt
from kernelopt.actions import ActionCategory
from kernelopt.backends.launch_tuning import GATE_RESERVE_S, MIN_SESSION_WALL_S, tune_request
from kernelopt.backends.protocol import StageContext
from kernelopt.backends.settings import RuleSettings
from kernelopt.batch.changes import CHANGED_CHARS, NO_KNOB, changed_text, kept_versions, knob_path
from kernelopt.batch.model import BatchTable, ProblemStatus
from kernelopt.loop.stop import StopDecision, StopReason
from kernelopt.memory.model import (
    CandidateResult,
    CandidateStatus,
    GateResult,
    IterationRecord,
    RooflineBounds,
)
from kernelopt.oneline import one_line
from kernelopt.workspace import Workspace

from .conftest import DATA, timed_or_withheld

SRC = str(Path(kernelopt.__file__).resolve().parents[1])
CPU_ENV = {"KERNELOPT_DEVICE": "cpu", "KERNELOPT_BENCH_S": "0.05", "KERNELOPT_SEEDS": "1", "COLUMNS": "100"}

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def optimized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One ``--optimize --max-iters 1`` batch of the Triton and the torch-only problem (the CLI, as a user runs it)."""
    root = tmp_path_factory.mktemp("optimize")
    problems, out = root / "problems", root / "out"
    shutil.copytree(DATA / "kernelbench_optimize", problems)
    env = {**os.environ, **CPU_ENV, "PYTHONPATH": SRC}
    argv = [sys.executable, "-m", "kernelopt", "batch", str(problems), "--optimize", "--max-iters", "1"]
    proc = subprocess.run(
        [*argv, "--device", "cpu", "--out", str(out)], capture_output=True, text=True, env=env, timeout=280
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


def test_the_engine_moves_the_triton_launch_and_the_row_says_so(
    optimized: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, proc = optimized
    table = BatchTable.model_validate_json((out / "batch.json").read_text(encoding="utf-8"))
    rows = {r.problem: r for r in table.rows}
    row = rows["relu_triton"]
    assert row.status is ProblemStatus.PASS and row.correct is True, row.reason
    assert row.best_version == "v1", (row.changed, row.stop)
    changed = row.changed or ""
    assert changed.startswith("BLOCK_SIZE 16 -> "), changed
    assert changed.endswith(" candidates)") and "(1 version, " in changed, changed
    assert row.stop == "max_iterations: 1 iteration(s) run, limit 1"
    record = json.loads((Path(row.workspace or "") / "memory" / "v1.json").read_text(encoding="utf-8"))
    after = record["optimization"]["knob_changes"]["BLOCK_SIZE"][1]
    assert f"BLOCK_SIZE 16 -> {after}" in changed  # taken from the memory record
    assert 1 <= len(record["candidates"]) <= 4  # the task card's budget of the session
    # the CSV carries the same text, and the table shows it within 100 columns
    csv_rows = {r["problem"]: r for r in csv.DictReader((out / "batch.csv").read_text(encoding="utf-8").splitlines())}
    assert csv_rows["relu_triton"]["changed"] == changed and csv_rows["relu_triton"]["stop"] == row.stop
    assert "changed /" in proc.stdout and "BLOCK_SIZE 16 ->" in proc.stdout
    table_lines = [line for line in proc.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table_lines and max(len(line) for line in table_lines) <= 100, proc.stdout


def test_a_torch_only_modelnew_is_a_row_that_says_why_nothing_changed(
    optimized: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, proc = optimized
    table = BatchTable.model_validate_json((out / "batch.json").read_text(encoding="utf-8"))
    row = next(r for r in table.rows if r.problem == "relu_torch")
    assert row.status is ProblemStatus.PASS and row.correct is True and row.best_version == "v0"
    # an --optimize row reports its best version's figures (test_batch's optimize-mode test of its own, suite27 s61)
    assert timed_or_withheld(row.speedup_vs_eager, row.reason), row
    assert Workspace(Path(row.workspace or "")).memory.read(0).performance.speedup_vs_reference is not None
    assert row.changed == NO_KNOB
    assert (row.stop or "").startswith("no_new_plan: ")
    csv_rows = {r["problem"]: r for r in csv.DictReader((out / "batch.csv").read_text(encoding="utf-8").splitlines())}
    assert csv_rows["relu_torch"]["changed"] == NO_KNOB
    assert "no tunable knob" in proc.stdout


def _record(
    n: int,
    result: GateResult = GateResult.PASS,
    *,
    knobs: dict[str, list[str | int | float | None]] | None = None,
    candidates: int = 0,
    latency_us: float = 100.0,
    reason: str | None = None,
) -> IterationRecord:
    r = IterationRecord(version=f"v{n}")
    r.quality_gate.result = result
    r.quality_gate.failure_reason = reason
    r.performance.latency_us = latency_us if result is GateResult.PASS else None
    r.optimization.action_category = ActionCategory.AUTOTUNE if n else None
    r.optimization.knob_changes = knobs or {}
    r.candidates = [
        CandidateResult(parameters={"BLOCK": 16 * (i + 1)}, status=CandidateStatus.OK, latency_us=1.0)
        for i in range(candidates)
    ]
    return r


def test_the_knob_path_runs_from_v0_to_the_best_version_over_the_kept_versions() -> None:
    records = [
        _record(0, latency_us=100.0),
        _record(1, knobs={"BLOCK": [1024, 2048], "num_warps": [4, 8]}, candidates=12, latency_us=80.0),
        _record(2, GateResult.FAIL, knobs={"BLOCK": [2048, 64]}, candidates=5, reason="slower"),
        _record(3, knobs={"BLOCK": [2048, 4096], "num_stages": [3, 2]}, candidates=7, latency_us=60.0),
        _record(4, knobs={"num_stages": [2, 3]}, candidates=3, latency_us=70.0),  # passed, not the best
    ]
    assert [r.version for r in kept_versions(records)] == ["v1", "v3"]
    assert knob_path(kept_versions(records)) == {"BLOCK": (1024, 4096), "num_warps": (4, 8), "num_stages": (3, 2)}
    stop = StopDecision(reason=StopReason.MAX_ITERATIONS, detail="4 iteration(s) run, limit 4")
    assert (
        changed_text(records, stop)
        == "BLOCK 1024 -> 4096, num_warps 4 -> 8, num_stages 3 -> 2 (2 versions, 27 candidates)"
    )
    # a knob moved and moved back is left out; a kept code change (no knob) is named by its category
    back = [
        _record(0),
        _record(1, knobs={"BLOCK": [64, 128]}, latency_us=90.0),
        _record(2, knobs={"BLOCK": [128, 64]}, latency_us=80.0),
    ]
    assert changed_text(back, stop) == "knobs moved and moved back (2 versions)"
    code = _record(1, latency_us=50.0)
    code.optimization.action_category = ActionCategory.FUSION
    assert changed_text([_record(0), code], stop) == "fusion (v1) (1 version)"


def test_nothing_kept_says_why() -> None:
    v0 = _record(0)
    v0.performance.roofline = RooflineBounds(measured_pct=84.6, measured_note="stream")
    converged = StopDecision(reason=StopReason.CONVERGED, detail="the launch configuration has converged ...")
    no_gain = _record(1, GateResult.FAIL, candidates=24, reason="the tuning session kept nothing")
    assert changed_text([v0, no_gain], converged) == (
        "launch configuration converged at 85 % of roofline (measured ceilings): further gains need a code change "
        "(--implementer agent-cli or llm-api)"
    )
    assert changed_text([_record(0)], converged) == (
        "launch configuration converged (no roofline bound known): further gains need a code change "
        "(--implementer agent-cli or llm-api)"
    )
    no_plan = StopDecision(reason=StopReason.NO_NEW_PLAN, detail="the rules backend has nothing it can move")
    assert changed_text([_record(0)], no_plan, knobless=True) == NO_KNOB
    assert (
        changed_text([_record(0)], no_plan) == "nothing changed: no_new_plan: the rules backend has nothing it can move"
    )
    limit = StopDecision(reason=StopReason.MAX_ITERATIONS, detail="2 iteration(s) run, limit 2")
    failed = [
        _record(0),
        _record(1, GateResult.FAIL, reason="wrong result"),
        _record(2, GateResult.TIMEOUT_FAIL, reason="x " * 200),
    ]
    text = changed_text(failed, limit) or ""
    assert text.startswith("nothing kept: 2 versions failed, last v2: x x") and len(text) <= CHANGED_CHARS
    assert text == one_line(text, CHANGED_CHARS)
    # versions that passed the gate (no significant change) but measured slower than V0, the best
    slower = [_record(0, latency_us=10.0), _record(1, latency_us=12.0), _record(2, GateResult.FAIL, reason="wrong")]
    assert (
        changed_text(slower, limit) == "nothing kept: v1 passed the gate but measured slower than v0; 1 version failed"
    )
    # a failed baseline: the row's status and reason say it; a loop that did not finish says nothing
    base = StopDecision(reason=StopReason.BASELINE_FAILED, detail="the baseline kernel does not pass the gate")
    assert changed_text([_record(0, GateResult.FAIL)], base) is None
    assert changed_text([_record(0)], None) is None


def test_the_tuning_session_measures_the_problem_the_gate_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--size-scale`` of a batch reaches the loop's gate as KERNELOPT_SIZE_SCALE; Stage 3's session must use it
    too (else it tunes, and times out on, the full-size problem while the gate times a scaled one)."""
    folder = DATA / "kernelbench_optimize" / "relu_triton"
    ws = Workspace.create("sizes", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    ctx = StageContext(workspace=ws, version=1, summary=None)
    monkeypatch.delenv("KERNELOPT_SIZE_SCALE", raising=False)
    assert tune_request(ctx, RuleSettings()).size_scale is None  # the task card's, as for the gate
    monkeypatch.setenv("KERNELOPT_SIZE_SCALE", "0.25")
    assert tune_request(ctx, RuleSettings()).size_scale == 0.25
    assert tune_request(ctx, RuleSettings(size_scale=0.5)).size_scale == 0.5


def test_the_session_ends_in_time_for_the_gate_within_the_loops_wall_limit(tmp_path: Path) -> None:
    """A loop with ``--max-wall-min`` tells Stage 3 its time left: the session keeps the gate's reserve of it,
    but runs at least the shortest session; with no limit its own rule stands."""
    folder = DATA / "kernelbench_optimize" / "relu_triton"
    ws = Workspace.create("walls", kernel=folder / "kernel.py", reference=folder / "reference.py", root=tmp_path)
    cap = {
        left: tune_request(
            StageContext(workspace=ws, version=1, summary=None, wall_left_s=left), RuleSettings()
        ).wall_cap_s
        for left in (None, 200.0, 10.0)
    }
    assert cap == {None: None, 200.0: 200.0 - GATE_RESERVE_S, 10.0: MIN_SESSION_WALL_S}
