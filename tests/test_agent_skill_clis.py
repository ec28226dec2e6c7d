"""The skill and the MCP server with the real Claude Code CLI and the scripted model server (tests/model_server.py).

One ``claude -p`` session, in a project where ``kernelopt agent install claude`` put the skill, with
``kernelopt mcp`` given by ``--mcp-config``: the first request Claude Code sends to the model lists the skill
(by its folder name and description, in the context before the model's first turn) and offers the
server's tools; the scripted model then follows the skill: it loads it, and calls ``init``, ``status``,
``profile``, ``evidence``, ``submit_plan``, edits ``kernel.py`` with Claude Code's own Read and Edit tools,
then ``validate`` and ``record``. The workspace it leaves has V1 passed by the gate and committed.

The CLI is the pinned npm release (``KNOWN`` in kernelopt/backends/coding_agents.py) that
tests/test_agent_clis.py installs into its cache; where it is not there and npm cannot install it, the test
skips and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kernelopt.agents.install import SKILL_NAME
from kernelopt.backends.coding_agents import CLAUDE_CODE
from kernelopt.cli.app import main

from .model_server import ModelServer, RecordedRequest, Text, ToolCall, Turn

pytestmark = pytest.mark.timeout(300)

SRC = str(Path(__file__).resolve().parents[1] / "src")
LOOP = Path(__file__).parent / "data" / "loop"
KEY = "sk-ant-test-0123456789abcdef0123456789"
PLAN = (Path(__file__).parent / "test_mcp_server.py").read_text().split('PLAN = """', 1)[1].split('"""', 1)[0]
MCP = "mcp__kernelopt__"
CACHE = Path(os.environ.get("KERNELOPT_TEST_CLI_CACHE") or Path.home() / ".cache" / "kernelopt-test-clis")
"""tests/test_agent_clis.py's cache of the CLIs (read at import: the tests' HOME is a fresh folder)."""


def claude_exe() -> Path:
    """Claude Code at its tested version: installed by tests/test_agent_clis.py's fixture (npm, into a cache)."""
    try:
        from .test_agent_clis import installed_cli
    except ImportError:  # that module not there: its cache alone
        exe = (
            CACHE / f"{CLAUDE_CODE.package.replace('/', '+')}@{CLAUDE_CODE.tested_version}" / "node_modules/.bin/claude"
        )
        if not exe.is_file():
            pytest.skip(f"Claude Code {CLAUDE_CODE.tested_version} is not installed: {CLAUDE_CODE.install}")
        return exe
    return installed_cli(CLAUDE_CODE)


class FollowsTheSkill:
    """The scripted model: waits until Claude Code has connected the kernelopt server, then takes its steps
    one request at a time (a step may be decided when its request arrives), then says it is done."""

    def __init__(self, steps: list[Turn]) -> None:
        self.steps = list(steps)
        self.waits = 0

    def __call__(self, req: RecordedRequest) -> Turn:
        if not any(n.startswith(MCP) for n in req.tool_names()):
            self.waits += 1
            return ToolCall("WaitForMcpServers", {})
        if not self.steps:
            return Text("V1 passed the gate and is committed.")
        step = self.steps.pop(0)
        return step(req) if callable(step) else step


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(Path(os.environ["GIT_CONFIG_GLOBAL"]), home / ".gitconfig")
    return home


def test_claude_code_lists_the_skill_and_a_session_that_follows_it_passes_v1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = claude_exe()
    project = tmp_path / "project"
    shutil.copytree(LOOP, project / "src")
    assert main(["agent", "install", "claude", "--project", str(project)]) == 0
    capsys.readouterr()
    home = _home(tmp_path)
    ws = project / "kernel_opt_add"
    config = {
        "mcpServers": {
            "kernelopt": {
                "command": sys.executable,
                "args": ["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"],
                "env": {
                    "PYTHONPATH": SRC,
                    "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "KERNELOPT_BENCH_S": "0.1",
                    "KERNELOPT_SEEDS": "1",
                    "OMP_NUM_THREADS": "1",
                },
            }
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))

    def plan(req: RecordedRequest) -> ToolCall:  # the latency profile returned, cited as measured
        summary = json.loads((ws / "profiles/v1/summary.json").read_text())
        latency = summary["kernels"][0]["metrics"]["duration_us"]["value"]
        return ToolCall(f"{MCP}submit_plan", {"workspace": str(ws), "plan": PLAN.format(latency=latency)})

    model = FollowsTheSkill(
        [
            ToolCall("Skill", {"skill": SKILL_NAME}),
            ToolCall(f"{MCP}init", {"name": "add", "kernel": "src/kernel.py", "reference": "src/reference.py"}),
            ToolCall(f"{MCP}status", {"workspace": str(ws)}),
            ToolCall(f"{MCP}profile", {"workspace": str(ws)}),
            ToolCall(f"{MCP}evidence", {"path": str(ws / "profiles/v1")}),
            plan,
            ToolCall("Read", {"file_path": str(ws / "kernel.py")}),
            ToolCall(
                "Edit", {"file_path": str(ws / "kernel.py"), "old_string": "BLOCK = 64", "new_string": "BLOCK = 1024"}
            ),
            ToolCall(f"{MCP}validate", {"workspace": str(ws)}),
            ToolCall(f"{MCP}record", {"workspace": str(ws)}),
        ]
    )
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "ANTHROPIC_API_KEY": KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    argv = [
        str(exe),
        "-p",
        "Optimize the kernel in src/ with kernelopt, following the kernel-optimization skill.",
        "--mcp-config",
        str(tmp_path / "mcp.json"),
        "--strict-mcp-config",
        "--allowedTools",
        "mcp__kernelopt,Skill,Read,Edit",
        "--no-session-persistence",
    ]
    with ModelServer([model] * 60, lifetime_s=240) as server:
        t0 = time.monotonic()
        out = subprocess.run(
            argv,
            cwd=project,
            env={**env, "ANTHROPIC_BASE_URL": server.url},
            capture_output=True,
            text=True,
            timeout=240,
        )
        wall_s = time.monotonic() - t0
    assert out.returncode == 0, out.stderr[-2000:]
    requests = server.model_requests()
    listing = _skills_listed(requests[0])
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing, listing  # the skill, by name and description
    offered = set(requests[-1].tool_names())
    tools = ("init", "status", "profile", "evidence", "compare", "wiki_search", "wiki_spec", "submit_plan")
    tools += ("validate", "record", "tune", "memory_summary", "report")
    assert {f"{MCP}{t}" for t in tools} <= offered
    results = _tool_results(requests)
    assert results["Skill"] == f"Launching skill: {SKILL_NAME}"
    assert "One category per iteration" in requests[-1].text()  # the skill's text, loaded into the conversation
    assert '"next":"profile"' in results[f"{MCP}status"].replace(" ", "")
    assert "duration_us" in results[f"{MCP}evidence"]
    assert '"result":"PASS"' in results[f"{MCP}validate"].replace(" ", "")
    assert not model.steps, f"steps left: {model.steps}"
    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True)
    assert log.stdout.splitlines()[0].startswith("V1: ") and "BLOCK=1024" in log.stdout
    assert json.loads((ws / "memory/v1.json").read_text())["quality_gate"]["result"] == "PASS"
    print(f"claude -p session: {wall_s:.1f} s, {len(requests)} model requests, {model.waits} waits for the server")


def _skills_listed(first: RecordedRequest) -> str:
    """The context Claude Code gives the model before its first turn that lists the skills (2.1.197: a
    ``system`` message after the user's first one, "The following skills are available for use with the
    Skill tool: - <name>: <description>")."""
    texts = []
    for message in first.body["messages"]:
        content = message["content"]
        blocks = [content] if isinstance(content, str) else [b.get("text", "") for b in content]
        texts += [t for t in blocks if "skills are available" in t]
    return "\n".join(texts)


def _tool_results(requests: list[RecordedRequest]) -> dict[str, str]:
    """Tool name -> the text Claude Code sent back for its (last) call, from the conversation it sent."""
    calls: dict[str, str] = {}
    out: dict[str, str] = {}
    for message in requests[-1].body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use":
                calls[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                content: Any = block.get("content")
                text = content if isinstance(content, str) else json.dumps(content)
                out[calls.get(block["tool_use_id"], "?")] = text
    return out
