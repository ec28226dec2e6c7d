"""The kernel-optimization skill and kernelopt mcp with the real Claude Code (see tests/skill_clis.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.agents.install import SKILL_NAME
from kernelopt.backends.coding_agents import CLAUDE_CODE
from kernelopt.cli.app import main

from .model_server import ToolCall, Turn
from .real_clis import installed_cli
from .skill_clis import (
    MCP,
    PLUGIN,
    PLUGIN_FILES,
    TOOLS,
    FollowsTheSkill,
    first_request,
    listing_of,
    make_project,
    mcp_env,
    plugin_cache,
    plugin_files,
    run_cli,
    skill_steps,
    tool_results,
    v1_passed_and_committed,
)

pytestmark = pytest.mark.timeout(300)


def test_claude_code_lists_the_skill_and_a_session_that_follows_it_passes_v1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = installed_cli(CLAUDE_CODE)
    project, home = make_project(tmp_path, "claude", capsys)
    ws = project / "kernel_opt_add"
    config = {
        "mcpServers": {
            "kernelopt": {
                "command": sys.executable,
                "args": ["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"],
                "env": mcp_env(home),
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
        ToolCall("WaitForMcpServers", {}), skill_steps(ws, ToolCall("Skill", {"skill": SKILL_NAME}), edit)
    )
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef0123456789",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    prompt = "Optimize the kernel in src/ with kernelopt, following the kernel-optimization skill."
    argv = [str(exe), "-p", prompt, "--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config"]
    argv += ["--allowedTools", "mcp__kernelopt,Skill,Read,Edit", "--no-session-persistence"]
    server, wall_s = run_cli(argv, project, env, model)
    requests = server.model_requests()
    listing = listing_of(requests[0], "skills are available")
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing, listing  # the skill, by name and description
    assert {f"{MCP}{t}" for t in TOOLS} <= set(requests[-1].tool_names())
    results = tool_results(requests[-1])
    assert results["Skill"] == f"Launching skill: {SKILL_NAME}"
    assert "One category per iteration" in requests[-1].text()  # the skill's text, loaded into the conversation
    assert '"next":"profile"' in results[f"{MCP}status"].replace(" ", "")
    assert "duration_us" in results[f"{MCP}evidence"]
    assert '"result":"PASS"' in results[f"{MCP}validate"].replace(" ", "")
    assert not model.steps, f"steps left: {model.steps}"
    v1_passed_and_committed(ws)
    print(f"claude -p session: {wall_s:.1f} s, {len(requests)} model requests, {model.waits} waits for the server")


def test_claude_code_lists_a_skill_installed_for_the_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = installed_cli(CLAUDE_CODE)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert main(["agent", "install", "claude", "--user"]) == 0
    capsys.readouterr()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef0123456789",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }
    argv = [str(exe), "-p", "say ok", "--no-session-persistence"]
    listing = listing_of(first_request(argv, elsewhere, env), "skills are available")
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing, listing


def test_the_repository_is_a_claude_code_plugin_whose_skill_is_listed(tmp_path: Path) -> None:
    exe = installed_cli(CLAUDE_CODE)
    home = tmp_path / "home"
    home.mkdir()
    checkout = plugin_files(tmp_path / "checkout", (".claude-plugin", "plugins"))
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef0123456789",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }
    for argv in (
        ["plugin", "validate", "--strict", str(checkout / PLUGIN / ".claude-plugin" / "plugin.json")],  # warnings too
        ["plugin", "validate", "--strict", str(checkout)],  # the marketplace
        ["plugin", "marketplace", "add", str(checkout)],
        ["plugin", "install", "kernelopt@kernelopt"],
    ):
        out = subprocess.run([str(exe), *argv], env=env, capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, (argv, out.stdout[-800:], out.stderr[-800:])
    assert plugin_cache(home / ".claude" / "plugins" / "cache") == PLUGIN_FILES  # the plugin's folder, nothing else
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listing = listing_of(
        first_request([str(exe), "-p", "say ok", "--no-session-persistence"], elsewhere, env), "skills are"
    )
    assert f"- kernelopt:{SKILL_NAME}: Make a GPU kernel" in listing, listing
