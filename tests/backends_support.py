"""Helpers shared by the backend tests: workspaces with Triton-style kernels, plans, a stand-in plan parser."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kernelopt import frontmatter
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace

DATA = Path(__file__).parent / "data"
TUNABLES = DATA / "tunables"
AGENTS = DATA / "agents"
REFERENCE = DATA / "kernels" / "add_reference.py"


_TEMPLATES: dict[str, Path] = {}
_TEMPLATE_ROOT: list[Path] = []


def _template_root() -> Path:
    if not _TEMPLATE_ROOT:
        folder = Path(tempfile.mkdtemp(prefix="kernelopt-test-ws-"))
        atexit.register(shutil.rmtree, folder, True)
        _TEMPLATE_ROOT.append(folder)
    return _TEMPLATE_ROOT[0]


def make_ws(root: Path, kernel: str = "add_launch_literal.py", *, card: dict[str, Any] | None = None) -> Workspace:
    """A workspace whose kernel.py is one of tests/data/tunables (never imported by these tests).

    Each distinct (kernel, card) workspace is created once per test session through
    ``Workspace.create`` and copied for every test (git repository included), which keeps the tests fast.
    """
    name = Path(kernel).stem  # a file under a subfolder (corpus/x.py) names the workspace x
    cache_key = f"{kernel}|{sorted((card or {}).items())}"
    if cache_key not in _TEMPLATES:
        base = _template_root() / f"t{len(_TEMPLATES)}"
        base.mkdir()
        card_path = None
        if card is not None:
            card_path = base / "card.md"
            card_path.write_text(frontmatter.join(card, "Test task card.\n"))
        shutil.copyfile(TUNABLES / kernel, base / "kernel.py")
        # The function-form contract needs run(); every tunables fixture defines one.
        ws = Workspace.create(name, kernel=base / "kernel.py", reference=REFERENCE, root=base, task_card=card_path)
        _TEMPLATES[cache_key] = ws.root
    target = root / _TEMPLATES[cache_key].name
    shutil.copytree(_TEMPLATES[cache_key], target, symlinks=True)
    return Workspace(target)


def make_plan(
    category: str = "num_warps",
    parameters: dict[str, Any] | None = None,
    targets: list[str] | None = None,
    version: int = 1,
) -> Plan:
    params = {"num_warps": 8} if parameters is None else parameters
    return Plan(
        version=version,
        bottleneck_type="latency_bound",
        action_category=category,
        targets=list(params) if targets is None else targets,
        parameters=params,
        action=f"{category}: " + ", ".join(f"{k} -> {v}" for k, v in params.items()),
        evidence=["smsp__pcsamp_warps_issue_stalled_long_scoreboard = 61 % [profiles/v1/ncu.ncu-rep] -> x -> y"],
        expected_impact="lower latency",
        risks_and_rollback="revert kernel.py",
    )


def render_plan_file(plan: Plan) -> str:
    """A plan file with the plan as YAML front matter (what the stand-in parser reads)."""
    return frontmatter.join(plan.model_dump(mode="json", exclude_none=True), "## Input Evidence\n")


def fake_parse_plan(text: str) -> Plan:
    """Stand-in for kernelopt.planning.markdown.parse_plan: the front matter is the plan."""
    front, _ = frontmatter.split(text)
    return Plan.model_validate(front)


def write_plan(ws: Workspace, plan: Plan) -> Path:
    path = ws.plan_path(plan.version)
    path.write_text(render_plan_file(plan))
    return path


def implement(ctx: Any, backend: Any, *, check: Any = None) -> Any:
    """Stage 3 as the commands and the loop run it (the stages layer), for ``ctx``'s plan."""
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement

    ws = ctx.workspace
    return run_implement(
        ws, ctx.version, ctx.plan, backend, guard=RunGuard(ws), check=check, summary=ctx.summary, history=ctx.history
    )


def plan_stage(ws: Workspace, version: int, backend: Any, *, reader: Any = None) -> Any:
    """Stage 2 as the commands and the loop run it (the stages layer)."""
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import summary_of
    from kernelopt.stages.plan import run_plan

    return run_plan(
        ws, version, backend, guard=RunGuard(ws), reader=reader, summary=summary_of(ws, version), history=[]
    )


def busy_implement(root: Path, timeout_s: float, **env: str) -> Any:
    """Stage 3 of a fresh workspace under ``root`` by the scripted busy.py (Claude Code's stream-json, one tool call
    after another; ``env`` its ``BUSY_*`` settings) within ``timeout_s``: the implementer's report."""
    import shlex
    import sys

    from kernelopt.backends.agent_cli import AgentCliImplementer
    from kernelopt.stages.implement import stage_context

    ws = make_ws(root)
    busy = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'busy.py'))}"
    plan = make_plan()
    write_plan(ws, plan)
    backend = AgentCliImplementer({"command": busy, "timeout_s": timeout_s, "env": env})
    return implement(stage_context(ws, 1, plan=plan), backend)
