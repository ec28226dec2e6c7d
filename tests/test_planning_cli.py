"""``kernelopt plan WS``: writes only plans/v<N>_plan.md, one-line errors, guarded backends."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from kernelopt.backends import registry
from kernelopt.backends.protocol import PlanOutcome, StageContext
from kernelopt.cli.app import main
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import PlanError
from kernelopt.stages import guard
from kernelopt.stages.guard import RunGuard
from kernelopt.stages.implement import summary_of
from kernelopt.stages.plan import PlanVerdict, default_version, run_plan
from kernelopt.workspace import Workspace

from .data.planning import fakes
from .test_planning_rules import make_ws


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ws(ws_root: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """A Triton workspace whose wiki search and tunable discovery are deterministic fakes."""
    import kernelopt.tunables as tun

    def discover(path: Path) -> list[types.SimpleNamespace]:
        return [
            types.SimpleNamespace(name="BLOCK_SIZE", value=1024, line=12),
            types.SimpleNamespace(name="num_warps", value=4, line=12),
        ]

    monkeypatch.setattr(tun, "discover", discover)
    monkeypatch.setattr("kernelopt.planning.rules.discover", discover)
    monkeypatch.setattr("kernelopt.planning.knowledge.search", fakes.FakeWiki())
    return make_ws(ws_root, "cli")


def test_no_summary_is_one_line_error(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", str(ws.root))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no profiles/v<N>/summary.json to plan from" in err
    code, _, err = run(capsys, "plan", str(ws.root), "--version", "0")  # past the next: refused (newuser4 u18)
    assert code == 2 and err.count("\n") == 1
    assert "no Stage 1 evidence for v0: profiles/v0/summary.json not found" in err
    assert not list(ws.plans_dir.glob("*.md"))


def test_plan_writes_only_the_plan(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    fakes.install_summary(ws, 1, "add_memory_bound")
    before = guard.snapshot(ws.root)
    code, out, err = run(capsys, "plan", str(ws.root), "--json")
    assert code == 0, err
    changes = guard.changes(before, guard.snapshot(ws.root))
    assert [(c.path, c.kind) for c in changes] == [("plans/v1_plan.md", "added")]
    data = json.loads(out)
    assert data["version"] == 1 and data["planner"] == "rules"
    assert data["plan_path"] == str(ws.plan_path(1))
    # the rules implementer runs one tuning session of the whole launch configuration
    assert data["plan"]["action_category"] == "autotune"
    assert data["plan"]["parameters"] == {} and "candidates" not in data["plan"]  # no candidate set: one session
    assert data["plan"]["current_values"]["BLOCK_SIZE"] == 1024 and data["plan"]["base_kernel_sha256"]
    assert "block_size" in data["plan"]["action"]  # the move the evidence favours: the session's seeds
    # human output
    code, out, _ = run(capsys, "plan", str(ws.root), "--version", "1", "--knob-only")
    assert code == 0 and "wrote " in out and "autotune (one tuning session from BLOCK_SIZE=1024" in out


def test_nothing_actionable_is_no_error_but_exit_1(
    ws: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    # exit 1, the stage's "no" (newuser5's n3): no plan was written, so `plan && implement` stops here
    monkeypatch.setattr("kernelopt.planning.rules.discover", lambda path: [])
    fakes.install_summary(ws, 1, "small_grid_latency")
    code, out, _ = run(capsys, "plan", str(ws.root), "--knob-only", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["plan"] is None and data["reason"].startswith("the rules backend has nothing it can move in v1")
    assert "agent-cli" in data["reason"] and "llm-api" in data["reason"]
    assert not ws.plan_path(1).exists()


def test_plan_defaults_to_what_the_loop_would_plan(
    ws: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    # a kernel with no knobs: the loop (rules implementer) has nothing to plan, and so has `plan` by
    # default; a code-change plan comes only for an implementer that can write code (seen by a fresh user:
    # `plan` wrote a num_warps plan with no parameters where the loop had stopped with no_new_plan)
    monkeypatch.setattr("kernelopt.planning.rules.discover", lambda path: [])
    fakes.install_summary(ws, 1, "small_grid_latency")
    code, out, _ = run(capsys, "plan", str(ws.root), "--json")
    assert code == 1 and json.loads(out)["plan"] is None
    code, out, _ = run(capsys, "plan", str(ws.root), "--implementer", "agent-cli", "--json")
    assert code == 0
    data = json.loads(out)["plan"]
    assert data is not None and data["parameters"] == {}  # a code change, for an agent to write
    ws.plan_path(1).unlink()
    code, out, _ = run(capsys, "plan", str(ws.root), "--any-action", "--json")
    assert code == 0 and json.loads(out)["plan"] is not None


def test_default_version(ws: Workspace) -> None:
    fakes.install_summary(ws, 0, "add_memory_bound")
    assert default_version(ws) == 0
    ws.memory.create(0)
    with pytest.raises(PlanError, match="the newest profile, v0, belongs to a recorded version"):
        default_version(ws)
    fakes.install_summary(ws, 1, "add_memory_bound")
    assert default_version(ws) == 1


class EvilPlanner:
    """Writes a valid-looking plan and also edits kernel.py (forbidden in Stage 2)."""

    name = "evil"

    def __init__(self, options: dict | None = None) -> None:
        self.options = options

    def plan(self, ctx: StageContext) -> PlanOutcome:
        ctx.workspace.kernel_py.write_text("# hacked\n")
        (ctx.workspace.root / "notes.txt").write_text("scratch\n")
        return PlanOutcome(None, reason="nothing")


class SloppyPlanner:
    """Writes a plan whose evidence cites nothing measured."""

    name = "sloppy"

    def __init__(self, options: dict | None = None) -> None:
        pass

    def plan(self, ctx: StageContext) -> PlanOutcome:
        from kernelopt.planning.markdown import parse_plan

        from .test_planning_markdown import KNOB_PLAN

        text = render_plan(KNOB_PLAN.model_copy(update={"version": ctx.version}))
        ctx.workspace.plan_path(ctx.version).write_text(text)
        return PlanOutcome(parse_plan(text))


def test_writes_outside_the_plan_are_reverted(ws: Workspace, capsys, monkeypatch) -> None:
    monkeypatch.setitem(registry.PLANNERS, "evil", "tests.test_planning_cli:EvilPlanner")
    fakes.install_summary(ws, 1, "add_memory_bound")
    kernel = ws.kernel_py.read_text()
    code, _, err = run(capsys, "plan", str(ws.root), "--planner", "evil")
    assert code == 2 and err.count("\n") == 1
    assert "planner 'evil': the planner wrote outside plans/v1_plan.md: kernel.py (modified), notes.txt (added)" in err
    assert ws.kernel_py.read_text() == kernel and not (ws.root / "notes.txt").exists()


def test_invalid_plan_is_rejected_and_moved(ws: Workspace, capsys, monkeypatch) -> None:
    monkeypatch.setitem(registry.PLANNERS, "sloppy", "tests.test_planning_cli:SloppyPlanner")
    fakes.install_summary(ws, 1, "add_memory_bound")
    code, _, err = run(capsys, "plan", str(ws.root), "--planner", "sloppy")
    assert code == 2 and err.count("\n") == 1
    assert (
        "plans/v1_plan.md rejected: plan v1: Input Evidence line 1 cites no metric value found in profiles/v1/" in err
    )
    assert "(moved to .kernelopt/rejected/v1_plan.md)" in err
    assert not ws.plan_path(1).exists() and (ws.state_dir / "rejected" / "v1_plan.md").is_file()


def test_rules_options_belong_to_rules(ws: Workspace, capsys) -> None:
    fakes.install_summary(ws, 1, "add_memory_bound")
    code, _, err = run(capsys, "plan", str(ws.root), "--planner", "evil-unknown")
    assert code == 2 and "unknown planner backend 'evil-unknown'" in err
    code, _, err = run(capsys, "plan", str(ws.root), "--planner", "llm-api", "--knob-only")
    assert code == 2 and "options of the rules planner" in err
    code, _, err = run(capsys, "plan", str(ws.root), "--implementer", "nosuch")  # it decides what may be planned
    assert code == 2 and "unknown implementer backend 'nosuch'" in err and err.count("\n") == 1


def test_web_command_from_environment(ws: Workspace, capsys, monkeypatch) -> None:
    fakes.install_summary(ws, 1, "softmax_memory_bound")
    monkeypatch.setenv("KERNELOPT_WEB_SEARCH_CMD", f"{sys.executable} {fakes.DATA / 'fake_web.py'} {{query}}")
    # only the reduce_bytes record: the wiki has no knob path, the web is searched
    monkeypatch.setattr("kernelopt.planning.knowledge.search", fakes.FakeWiki(records=[fakes.RECORDS[0]]))
    code, out, err = run(capsys, "plan", str(ws.root), "--knob-only", "--json")
    assert code == 0, err
    log = json.loads(out)["plan"]["search_log"]
    assert any(e["source"] == "web" and "example.com" in e["finding"] for e in log)
    assert "4.8" not in ws.plan_path(1).read_text()


def test_run_plan_returns_plan_and_reports_planner_note(ws: Workspace) -> None:
    from kernelopt.backends.rules import RulePlanner

    fakes.install_summary(ws, 1, "add_memory_bound")
    result = run_plan(ws, 1, RulePlanner(), guard=RunGuard(ws), summary=summary_of(ws, 1), history=[])
    assert result.verdict is PlanVerdict.PLANNED and result.plan is not None and result.reason is None
    assert result.plan.search_log[0].source == "gpu-wiki"


def test_plan_and_prompt_have_a_cpu_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: profile, plan and prompt had no CPU path; the step-by-step workflow now runs without a GPU."""
    from kernelopt.workspace import Workspace

    loop = Path(__file__).parent / "data" / "loop"
    ws = Workspace.create("steps", kernel=loop / "kernel.py", reference=loop / "reference.py", root=tmp_path)
    code = main(["plan", str(ws.root), "--device", "cpu", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads((ws.profile_dir(0) / "summary.json").read_text())
    assert summary["tool_used"] == "timing-only (time.perf_counter on the CPU)"
    assert summary["counters_unavailable_reason"].startswith("--device cpu: no GPU profiler runs")
    assert json.loads(out)["plan"]["action_category"] == "autotune" and ws.plan_path(0).is_file()
    assert main(["prompt", str(ws.root), "--stage", "plan", "--device", "cpu"]) == 0  # the profile is reused
    assert "timing-only (time.perf_counter on the CPU)" in capsys.readouterr().out
    fresh = Workspace.create("steps2", kernel=loop / "kernel.py", reference=loop / "reference.py", root=tmp_path)
    assert main(["plan", str(fresh.root)]) == 2
    assert "or pass --device cpu to take timing-only evidence on the CPU" in capsys.readouterr().err


@pytest.mark.timeout(120)
def test_plan_on_the_cpu_runs_a_triton_kernel_interpreted_without_triton_interpret_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/faults.md, a new user's kernels, row 11: ``kernelopt plan WS --device cpu`` on a Triton kernel with no
    TRITON_INTERPRET in the environment (README's step by step) failed in Stage 1's driver, "0 active drivers",
    while optimize and validate --device cpu ran it: --device cpu runs Triton interpreted everywhere."""
    from kernelopt.workspace import Workspace

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    data = Path(__file__).parent / "data"
    kernel, reference = data / "harness" / "add_triton.py", data / "kernels" / "add_reference.py"
    ws = Workspace.create("triton_cpu", kernel=kernel, reference=reference, root=tmp_path)
    code = main(["plan", str(ws.root), "--device", "cpu", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads((ws.profile_dir(0) / "summary.json").read_text())
    assert summary["tool_used"] == "timing-only (time.perf_counter on the CPU)"
    assert [k["kernel_name"] for k in summary["kernels"]] and summary["kernels"][0]["metrics"]["duration_us"]["value"]
    assert json.loads(out)["plan"] is not None and ws.plan_path(0).is_file()


def test_an_unavailable_agent_is_the_environment_s_exit_3_not_a_plan_error(
    ws_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kernelopt plan` said an agent whose infrastructure failed (not logged in, API down) as a plan error,
    exit 2 (bad input); it is exit 3, as `optimize` and `validate` give the verdict AGENT_UNAVAILABLE."""
    import shlex

    agent = Path(__file__).parent / "data" / "agents" / "unavailable.py"
    monkeypatch.setenv("UNAVAILABLE_SAYS", "API Error: 500 Internal server error")
    ws = make_ws(ws_root, "cli")  # its real knobs: the agent's prompt lists them
    fakes.install_summary(ws, 1, "add_memory_bound")
    command = f"command={shlex.quote(sys.executable)} {shlex.quote(str(agent))} {{prompt_file}}"
    code, out, err = run(capsys, "plan", str(ws.root), "--planner", "agent-cli", "-o", command)
    assert code == 3 and out == "", err
    assert err.count("\n") == 1 and err.startswith("kernelopt: error: planner 'agent-cli': ")
    assert "API Error: 500" in err and not ws.plan_path(1).exists()
