"""The skill and the MCP server with the real Claude Code and Codex CLIs and the scripted model server
(tests/model_server.py).

One session per CLI, in a project where ``kernelopt agent install <cli>`` put the skill, with ``kernelopt mcp``
configured as the CLI's MCP server: the first request the CLI sends to the model lists the skill (by its folder
name and description) and, once the server is connected, offers its tools; the scripted model then follows the
skill: it loads it, and calls ``init``, ``status``, ``profile``, ``evidence``, ``submit_plan``, edits ``kernel.py``
with the CLI's own tools, then ``validate`` and ``record``. The workspace it leaves has V1 passed by the gate and
committed.

What each CLI sends (Claude Code 2.1.197, Codex 0.171.0):

* Claude Code: a ``system`` message before the model's first turn, "The following skills are available for use
  with the Skill tool: - kernel-optimization: <description>"; the MCP tools as ``mcp__kernelopt__<tool>``.
* Codex: a developer message ``<skills_instructions>`` with a table of skill roots (the project's
  ``.agents/skills``) and "- kernel-optimization: <description> (file: r<k>/kernel-optimization/SKILL.md)"; the
  MCP tools in a namespace ``mcp__kernelopt``. Codex asks approval for an MCP tool unless the server's
  ``default_tools_approval_mode = "approve"``.

The CLIs are the pinned npm releases (``KNOWN`` in kernelopt/backends/coding_agents.py), installed by
tests/real_clis.py into its cache; where npm is missing or cannot install them, the tests skip and say why.
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
from kernelopt.backends.coding_agents import CLAUDE_CODE, CODEX
from kernelopt.cli.app import main

from .model_server import ModelServer, RecordedRequest, Text, ToolCall, Turn
from .real_clis import installed_cli

pytestmark = pytest.mark.timeout(300)

SRC = str(Path(__file__).resolve().parents[1] / "src")
LOOP = Path(__file__).parent / "data" / "loop"
PLAN = (Path(__file__).parent / "test_mcp_server.py").read_text().split('PLAN = """', 1)[1].split('"""', 1)[0]
MCP = "mcp__kernelopt__"
TOOLS = ("init", "status", "profile", "evidence", "compare", "wiki_search", "wiki_spec", "submit_plan")
TOOLS += ("validate", "record", "tune", "memory_summary", "report")


class FollowsTheSkill:
    """The scripted model: until the CLI has connected the kernelopt server it waits (``wait``), then it takes
    its steps one request at a time (a step may be decided when its request arrives), then says it is done."""

    def __init__(self, wait: Turn, steps: list[Turn]) -> None:
        self.wait = wait
        self.steps = list(steps)
        self.waits = 0

    def __call__(self, req: RecordedRequest) -> Turn:
        if not any(n.startswith(MCP) for n in req.tool_names()):
            self.waits += 1
            return self.wait(req) if callable(self.wait) else self.wait
        if not self.steps:
            return Text("V1 passed the gate and is committed.")
        step = self.steps.pop(0)
        return step(req) if callable(step) else step


def _steps(ws: Path, load_skill: Turn, edit: list[Turn]) -> list[Turn]:
    def plan(req: RecordedRequest) -> ToolCall:  # the latency the profile measured, cited
        summary = json.loads((ws / "profiles/v1/summary.json").read_text())
        latency = summary["kernels"][0]["metrics"]["duration_us"]["value"]
        return ToolCall.mcp("kernelopt", "submit_plan", {"workspace": str(ws), "plan": PLAN.format(latency=latency)})(
            req
        )

    return [
        load_skill,
        ToolCall.mcp("kernelopt", "init", {"name": "add", "kernel": "src/kernel.py", "reference": "src/reference.py"}),
        ToolCall.mcp("kernelopt", "status", {"workspace": str(ws)}),
        ToolCall.mcp("kernelopt", "profile", {"workspace": str(ws)}),
        ToolCall.mcp("kernelopt", "evidence", {"path": str(ws / "profiles/v1")}),
        plan,
        *edit,
        ToolCall.mcp("kernelopt", "validate", {"workspace": str(ws)}),
        ToolCall.mcp("kernelopt", "record", {"workspace": str(ws)}),
    ]


def _server_env(home: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": SRC,
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "KERNELOPT_BENCH_S": "0.1",
        "KERNELOPT_SEEDS": "1",
        "OMP_NUM_THREADS": "1",
    }


def _project(tmp_path: Path, cli: str, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A project folder with the kernel in src/ and the skill installed for ``cli``; a fresh HOME."""
    project = tmp_path / "project"
    shutil.copytree(LOOP, project / "src")
    assert main(["agent", "install", cli, "--project", str(project)]) == 0
    capsys.readouterr()
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(Path(os.environ["GIT_CONFIG_GLOBAL"]), home / ".gitconfig")
    return project, home


def _run(argv: list[str], project: Path, env: dict[str, str], model: FollowsTheSkill) -> tuple[ModelServer, float]:
    with ModelServer([model] * 60, lifetime_s=240) as server:
        env = {**env, "ANTHROPIC_BASE_URL": server.url} if "ANTHROPIC_API_KEY" in env else env
        if (Path(env["HOME"]) / ".codex" / "config.toml.in").is_file():
            template = (Path(env["HOME"]) / ".codex" / "config.toml.in").read_text()
            (Path(env["HOME"]) / ".codex" / "config.toml").write_text(template.replace("{url}", server.url))
        t0 = time.monotonic()
        out = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=240, check=False)
        wall_s = time.monotonic() - t0
    assert out.returncode == 0, (out.stdout[-1500:], out.stderr[-1500:])
    return server, wall_s


def _v1_passed_and_committed(ws: Path) -> None:
    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True)
    assert log.stdout.splitlines()[0].startswith("V1: ") and "BLOCK=1024" in log.stdout
    assert json.loads((ws / "memory/v1.json").read_text())["quality_gate"]["result"] == "PASS"


def test_claude_code_lists_the_skill_and_a_session_that_follows_it_passes_v1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = installed_cli(CLAUDE_CODE)
    project, home = _project(tmp_path, "claude", capsys)
    ws = project / "kernel_opt_add"
    config = {
        "mcpServers": {
            "kernelopt": {
                "command": sys.executable,
                "args": ["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"],
                "env": _server_env(home),
            }
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    kernel = str(ws / "kernel.py")
    edit: list[Turn] = [
        ToolCall("Read", {"file_path": kernel}),
        ToolCall("Edit", {"file_path": kernel, "old_string": "BLOCK = 64", "new_string": "BLOCK = 1024"}),
    ]
    model = FollowsTheSkill(
        ToolCall("WaitForMcpServers", {}), _steps(ws, ToolCall("Skill", {"skill": SKILL_NAME}), edit)
    )
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef0123456789",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    prompt = "Optimize the kernel in src/ with kernelopt, following the kernel-optimization skill."
    argv = [str(exe), "-p", prompt, "--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config"]
    argv += ["--allowedTools", "mcp__kernelopt,Skill,Read,Edit", "--no-session-persistence"]
    server, wall_s = _run(argv, project, env, model)
    requests = server.model_requests()
    listing = _context(requests[0], "skills are available")
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing, listing  # the skill, by name and description
    assert {f"{MCP}{t}" for t in TOOLS} <= set(requests[-1].tool_names())
    results = _tool_results(requests[-1])
    assert results["Skill"] == f"Launching skill: {SKILL_NAME}"
    assert "One category per iteration" in requests[-1].text()  # the skill's text, loaded into the conversation
    assert '"next":"profile"' in results[f"{MCP}status"].replace(" ", "")
    assert "duration_us" in results[f"{MCP}evidence"]
    assert '"result":"PASS"' in results[f"{MCP}validate"].replace(" ", "")
    assert not model.steps, f"steps left: {model.steps}"
    _v1_passed_and_committed(ws)
    print(f"claude -p session: {wall_s:.1f} s, {len(requests)} model requests, {model.waits} waits for the server")


def test_codex_lists_the_skill_and_a_session_that_follows_it_passes_v1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = installed_cli(CODEX)
    project, home = _project(tmp_path, "codex", capsys)
    ws = project / "kernel_opt_add"
    (home / ".codex").mkdir()
    server_env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in _server_env(home).items())
    args = json.dumps(["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"])
    (home / ".codex" / "config.toml.in").write_text(
        'model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\n'
        'name = "scripted"\nbase_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n\n"
        f"[mcp_servers.kernelopt]\ncommand = {json.dumps(sys.executable)}\nargs = {args}\n"
        f"env = {{ {server_env} }}\nstartup_timeout_sec = 120\ntool_timeout_sec = 240\n"
        'default_tools_approval_mode = "approve"\n'
    )
    edit = [ToolCall.shell(f"sed -i 's/BLOCK = 64/BLOCK = 1024/' {ws / 'kernel.py'}")]
    load = ToolCall.shell(f"cat .agents/skills/{SKILL_NAME}/SKILL.md")
    model = FollowsTheSkill(ToolCall.shell("sleep 2"), _steps(ws, load, edit))
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "sk-test-0123456789abcdef0123456789",
    }
    prompt = "Optimize the kernel in src/ with kernelopt, following the kernel-optimization skill."
    argv = [str(exe), "exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write"]
    argv += ["-c", "allow_login_shell=false", prompt]
    server, wall_s = _run(argv, project, env, model)
    requests = server.model_requests()
    listing = _context(requests[0], "<skills_instructions>")
    assert f"`{project / '.agents' / 'skills'}`" in listing, listing  # the project's skills folder, a root
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing and f"/{SKILL_NAME}/SKILL.md)" in listing, listing
    assert {f"{MCP}{t}" for t in TOOLS} <= set(requests[-1].tool_names())
    outputs = _codex_outputs(requests[-1])
    assert "One category per iteration" in outputs["exec_command"]  # the skill's text, read
    assert '"next":"profile"' in outputs["mcp__kernelopt.status"].replace(" ", "")
    assert "duration_us" in outputs["mcp__kernelopt.evidence"]
    assert '"result":"PASS"' in outputs["mcp__kernelopt.validate"].replace(" ", "")
    assert not model.steps, f"steps left: {model.steps}"
    _v1_passed_and_committed(ws)
    print(f"codex exec session: {wall_s:.1f} s, {len(requests)} model requests, {model.waits} waits for the server")


def _context(first: RecordedRequest, marker: str) -> str:
    """The texts of the first request's messages that hold ``marker`` (where the CLI lists the skills)."""
    texts: list[str] = []
    for message in first.body.get("messages") or first.body.get("input") or []:
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]
        texts += [t for t in blocks if marker in t]
    return "\n".join(texts)


def _codex_outputs(last: RecordedRequest) -> dict[str, str]:
    """``<namespace>.<tool>`` (or the tool) -> every output Codex sent back for it, from the conversation it sent."""
    calls: dict[str, str] = {}
    out: dict[str, str] = {}
    for item in last.body["input"]:
        if item.get("type") == "function_call":
            ns = item.get("namespace")
            calls[item["call_id"]] = f"{ns}.{item['name']}" if ns else item["name"]
        elif item.get("type") == "function_call_output":
            output: Any = item.get("output")
            text = output if isinstance(output, str) else "\n".join(b.get("text", "") for b in output)
            name = calls.get(item["call_id"], "?")
            out[name] = out.get(name, "") + text + "\n"
    return out


def _tool_results(last: RecordedRequest) -> dict[str, str]:
    """Tool name -> the text Claude Code sent back for its (last) call, from the conversation it sent."""
    calls: dict[str, str] = {}
    out: dict[str, str] = {}
    for message in last.body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use":
                calls[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                content: Any = block.get("content")
                text = content if isinstance(content, str) else json.dumps(content)
                out[calls.get(block["tool_use_id"], "?")] = text
    return out
