"""What the skill tests with the real CLIs share (test_agent_skill_claude.py, test_agent_skill_codex.py): the skill
and the MCP server with the real Claude Code and Codex CLIs and the scripted model server
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
import time
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.app import main

from .conftest import BENCH_S
from .model_server import ModelServer, RecordedRequest, Text, ToolCall, Turn

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


def skill_steps(ws: Path, load_skill: Turn, edit: list[Turn]) -> list[Turn]:
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


def mcp_env(home: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": SRC,
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "KERNELOPT_BENCH_S": BENCH_S,
        "KERNELOPT_SEEDS": "1",
        "OMP_NUM_THREADS": "1",
    }


def make_project(tmp_path: Path, cli: str, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A project folder with the kernel in src/ and the skill installed for ``cli``; a fresh HOME."""
    project = tmp_path / "project"
    shutil.copytree(LOOP, project / "src")
    assert main(["agent", "install", cli, "--project", str(project)]) == 0
    capsys.readouterr()
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(Path(os.environ["GIT_CONFIG_GLOBAL"]), home / ".gitconfig")
    return project, home


def run_cli(argv: list[str], project: Path, env: dict[str, str], model: FollowsTheSkill) -> tuple[ModelServer, float]:
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


CODEX_PROVIDER = (
    'model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\n'
    'name = "scripted"\nbase_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
    "request_max_retries = 0\nstream_max_retries = 0\n"
)
"""Codex's config.toml for the scripted server (``{url}`` filled in when the server runs)."""


REPO = Path(__file__).resolve().parents[1]


PLUGIN = Path("plugins") / "kernelopt"
"""The plugin's folder in the repository, which the marketplaces name as its source."""


def plugin_files(folder: Path, parts: tuple[str, ...]) -> Path:
    """A checkout holding the marketplace's and the plugin's files (``parts`` of the repository), plus what else a
    checkout holds at its root (a README, a git repository): what the CLI must leave out of its plugin cache."""
    for part in parts:
        shutil.copytree(REPO / part, folder / part)
    shutil.copy(REPO / "README.md", folder / "README.md")
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
    return folder


def plugin_cache(cache: Path) -> list[str]:
    """The files a CLI copied into its plugin cache (``cache``: ``~/.claude/plugins/cache``,
    ``~/.codex/plugins/cache``), relative to the plugin's copy (``<marketplace>/<plugin>/<version>/``).
    Codex 0.171.0 copies the plugin's whole folder, ``.git`` included: when the plugin was the repository's root,
    a fresh clone put 98 MB into ``~/.codex`` (81 MB of it the clone's ``.git``); Claude Code 2.1.197 copied 17 MB."""
    (copy,) = cache.glob("kernelopt/kernelopt/*")
    return sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())


PLUGIN_FILES = [".claude-plugin/plugin.json", ".codex-plugin/plugin.json", "skills/kernel-optimization/SKILL.md"]
"""What the plugin's folder holds, and all a CLI copies of it."""


def first_request(argv: list[str], cwd: Path, env: dict[str, str]) -> RecordedRequest:
    """Run the CLI once against a server that answers "ok"; the first request it sent the model."""
    home = Path(env["HOME"])
    with ModelServer([Text("ok")], lifetime_s=120) as server:
        if "ANTHROPIC_API_KEY" in env:
            env = {**env, "ANTHROPIC_BASE_URL": server.url}
        else:
            config = home / ".codex" / "config.toml"
            config.parent.mkdir(exist_ok=True)
            tables = config.read_text() if config.is_file() else ""  # the plugins a test installed: kept
            config.write_text(CODEX_PROVIDER.replace("{url}", server.url) + "\n" + tables)
        out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, (out.stdout[-1500:], out.stderr[-1500:])
    return server.model_requests()[0]


def v1_passed_and_committed(ws: Path) -> None:
    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True)
    assert log.stdout.splitlines()[0].startswith("V1: ") and "BLOCK=1024" in log.stdout
    assert json.loads((ws / "memory/v1.json").read_text())["quality_gate"]["result"] == "PASS"


def listing_of(first: RecordedRequest, marker: str) -> str:
    """The texts of the first request's messages that hold ``marker`` (where the CLI lists the skills)."""
    texts: list[str] = []
    for message in first.body.get("messages") or first.body.get("input") or []:
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]
        texts += [t for t in blocks if marker in t]
    return "\n".join(texts)


def codex_outputs(last: RecordedRequest) -> dict[str, str]:
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


def tool_results(last: RecordedRequest) -> dict[str, str]:
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
