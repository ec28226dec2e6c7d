"""The whole loop with coding-agent and LLM-API backends on the CPU (``--device cpu``), end to end.

Scripted agents under tests/data/agents/ change CODE, not knobs, on a multi-pass row softmax
(tests/data/agents/rows/): one rewrites it as a single pass, one first breaks the build and then repairs
it, one makes it slower so the gate fails and the loop reverts. The llm-api loop talks to a small chat
server on 127.0.0.1 that the test starts and stops. Every run goes through ``kernelopt optimize`` with
the real harness, from one gated V0 made once for the file (``rows_baseline``), and ends in a consistent
workspace: linear history, protected files byte-identical to the run start, clean git status.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.app import main
from kernelopt.memory.model import GateResult
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace

from .conftest import with_baseline
from .test_backends_llm_api import Canned, ChatServer

AGENTS = Path(__file__).parent / "data" / "agents"
ROWS = AGENTS / "rows"
PY = shlex.quote(sys.executable)
SINGLE_PASS = (AGENTS / "_agent.py").read_text().split("SINGLE_PASS = '''", 1)[1].split("'''", 1)[0]

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a shared CI machine: one thread keeps CPU timing steady
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)


def agent(script: str) -> str:
    return f"command={PY} {shlex.quote(str(AGENTS / script))} {{prompt_file}}"


@pytest.fixture
def ws_root(ws_root: Path, rows_baseline: Path) -> Path:
    """Every loop here starts from the same gated V0 (made once: tests/conftest.py) and runs from V1."""
    with_baseline(rows_baseline, ws_root)
    return ws_root


def optimize(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[Workspace, dict[str, Any]]:
    code = main(["optimize", str(ROWS), "--root", str(root), "--device", "cpu", "--json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    ws = Workspace(root / "kernel_opt_rows")
    return ws, json.loads(out)


def consistent(ws: Workspace) -> None:
    """Linear history, protected files as at the start, nothing uncommitted."""
    parents = ws.repo.git.log("--format=%p").splitlines()
    assert all(len(p.split()) <= 1 for p in parents)  # no merge, one line of commits
    status = ws.repo.git.status("--porcelain").splitlines()
    assert [x for x in status if not x.startswith("?? profiles/")] == []  # Stage 1 output stays on disk, untracked
    init = ws.repo.git.rev_list("--max-parents=0", "HEAD").strip()
    for rel in ("reference.py", "test_kernel.py", "README.md"):
        assert (ws.root / rel).read_text() == ws.file_at(init, rel)
    assert [b.strip("* ") for b in ws.repo.git.branch().splitlines()] == [ws.repo.active_branch.name]
    assert ws.repo.git.tag() == "" and ws.repo.git.stash("list") == ""


def agent_args(planner: str, implementer: str) -> list[str]:
    return ["--planner", "agent-cli", "-P", agent(planner), "--implementer", "agent-cli", "-I", agent(implementer)]


def test_agent_rewrites_the_multi_pass_kernel_as_single_pass(ws_root: Path, capsys) -> None:
    ws, summary = optimize(ws_root, capsys, "--max-iters", "2", *agent_args("planner.py", "single_pass.py"))
    results = [(o["version"], o["result"]) for o in summary["this_run"]]
    assert results == [(1, "PASS"), (2, "FAIL")]
    assert ws.kernel_py.read_text() == SINGLE_PASS  # V1 is the kept kernel
    r2 = ws.memory.read(2)
    assert (r2.quality_gate.failure_reason or "").startswith(
        "the implementer could not apply the plan: the agent exited 0 without changing kernel.py"
    )
    assert summary["best_version"] == "v1" and summary["speedup_vs_baseline"] > 2
    # on the CPU no profiler runs (issue 23: "3 profile(s) taken" beside "no GPU profiler runs")
    assert summary["profiles_taken"] == 0 and set(summary["stage_seconds"]) >= {"plan", "implement", "gate"}
    # the plan prompt the loop sent is exactly what `kernelopt prompt` prints for that version
    sent = (ws.state_dir / "agent" / "v2_plan_prompt.md").read_text()
    consistent(ws)
    code = main(["prompt", str(ws.root), "--stage", "plan", "--version", "2"])
    assert code == 0 and capsys.readouterr().out == sent


def test_a_compile_error_is_repaired(ws_root: Path, capsys) -> None:
    ws, summary = optimize(ws_root, capsys, "--max-iters", "1", *agent_args("planner.py", "compile_error.py"))
    assert [o["result"] for o in summary["this_run"]] == ["PASS"]
    r1 = ws.memory.read(1)
    pit = r1.pitfalls_and_fixes[0]
    assert pit.error_type == "correctness_fail" and pit.error_message.startswith("kernel.py does not parse: line ")
    assert pit.fix_applied == "repair attempt by the implementer"
    assert ws.kernel_py.read_text() == SINGLE_PASS
    consistent(ws)


def test_a_slower_kernel_is_rejected_and_reverted(ws_root: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    # the regression is the verdict: timed longer than conftest's BENCH_S
    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.2")
    ws, summary = optimize(ws_root, capsys, "--max-iters", "1", *agent_args("planner.py", "slower.py"))
    assert [o["result"] for o in summary["this_run"]] == ["FAIL"]
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.FAIL and r1.quality_gate.failure_reason
    assert ws.kernel_py.read_bytes() == (ROWS / "kernel.py").read_bytes()  # back to V0
    assert "V1: revert" in ws.log(max_count=1)[0][1]
    consistent(ws)


def test_llm_api_loop_against_a_local_chat_server(ws_root: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-loop-test-0123456789abcdef"
    monkeypatch.setenv("KERNELOPT_LLM_API_KEY", key)
    ws_dir = ws_root / "kernel_opt_rows"

    def reply(body: dict[str, Any]) -> Canned:
        system = body["messages"][0]["content"]
        if "Stage 2" in system:
            n = max(int(p.name[1:]) for p in (ws_dir / "profiles").glob("v*") if p.name[1:].isdigit())
            data = json.loads((ws_dir / "profiles" / f"v{n}" / "summary.json").read_text())
            latency = data["kernels"][0]["metrics"]["duration_us"]["value"]
            category = "fusion" if n == 1 else "vectorized_access"
            plan = Plan(
                version=n,
                bottleneck_type="latency_bound",
                action_category=category,
                targets=["kernel.py"],
                action="walk each row once",
                evidence=[f"duration_us = {latency} us [profiles/v{n}/summary.json] -> three passes -> fuse them"],
                search_log=[{"source": "gpu-wiki", "query": "softmax", "finding": "one pass", "actionability": "yes"}],
                expected_impact="lower latency",
                risks_and_rollback="revert kernel.py",
                counters_available=False,
            )
            return Canned(content=render_plan(plan))
        current = (ws_dir / "kernel.py").read_text()
        new = SINGLE_PASS if "for i in range" in current else "def run(x:\n    return x\n"  # V2: garbage
        return Canned(content=f"```python\n{new}```")

    with ChatServer() as server:
        server.responder = reply
        ws, summary = optimize(
            ws_root,
            capsys,
            "--max-iters",
            "2",
            "--planner",
            "llm-api",
            "-P",
            f"base_url={server.url}",
            "-P",
            "model=test-model",
            "--implementer",
            "llm-api",
            "-I",
            f"base_url={server.url}",
            "-I",
            "model=test-model",
            "-I",
            "retries=0",
        )
        assert len(server.requests) >= 4
        assert all(r["headers"].get("Authorization") == f"Bearer {key}" for r in server.requests)
    results = [o["result"] for o in summary["this_run"]]
    assert results == ["PASS", "FAIL"]  # V2's reply does not parse: a recorded result, not a crash
    assert "does not parse as Python" in (ws.memory.read(2).quality_gate.failure_reason or "")
    assert ws.kernel_py.read_text() == SINGLE_PASS
    for p in ws.root.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            assert key.encode() not in p.read_bytes(), p
    consistent(ws)


def test_an_unavailable_implementer_is_its_own_verdict_stops_the_loop_and_exits_3(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: an API error is AGENT_UNAVAILABLE, not a lesson about the action, which stays untried; the
    command exits 3 (an environment problem) with one line, never 0."""
    from kernelopt.planning.history import build_history
    from kernelopt.stages.plan import MarkdownPlanReader, tried_signatures

    monkeypatch.setenv("UNAVAILABLE_SAYS", "API Error: 500 Internal server error")
    # a real process: the exit status is the point (it was 0 after the verdict agent_unavailable)
    argv = [sys.executable, "-m", "kernelopt", "optimize", str(ROWS), "--root", str(ws_root), "--device", "cpu"]
    argv += ["--json", "--max-iters", "3", *agent_args("planner.py", "unavailable.py")]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 3, run.stderr  # the environment's status, as `kernelopt validate` gives the verdict
    (error,) = [line for line in run.stderr.splitlines() if line.startswith("kernelopt:")]
    assert error.startswith("kernelopt: error: the agent was unavailable: the implementer was unavailable: ")
    assert "API Error: 500" in error and error.endswith("the action stays untried")
    assert "Traceback" not in run.stderr
    summary = json.loads(run.stdout)  # the summary is printed all the same
    ws = Workspace(ws_root / "kernel_opt_rows")
    assert [(o["version"], o["result"]) for o in summary["this_run"]] == [(1, "AGENT_UNAVAILABLE")]
    assert summary["stop"]["reason"] == "agent_unavailable"
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.AGENT_UNAVAILABLE
    lessons = [p.lesson or "" for p in r1.pitfalls_and_fixes if p.root_cause.startswith("the agent's infrastructure")]
    assert lessons and "may be planned again" in lessons[0]
    assert not any("failed as planned" in (p.lesson or "") for p in r1.pitfalls_and_fixes)
    plan = MarkdownPlanReader().parse(ws.plan_path(1).read_text())
    assert tried_signatures(ws, MarkdownPlanReader(), before=2) == {}
    assert not build_history(list(ws.memory.records())).was_tried(plan.signature())
    assert ws.kernel_py.read_bytes() == (ROWS / "kernel.py").read_bytes()
    consistent(ws)
