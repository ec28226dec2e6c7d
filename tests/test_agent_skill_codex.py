"""The kernel-optimization skill and kernelopt mcp with the real Codex (see tests/skill_clis.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.agents.install import SKILL_NAME
from kernelopt.backends.coding_agents import CODEX
from kernelopt.cli.app import main

from .model_server import ToolCall
from .real_clis import installed_cli
from .skill_clis import (
    CODEX_PROVIDER,
    MCP,
    PLUGIN_FILES,
    TOOLS,
    FollowsTheSkill,
    codex_outputs,
    first_request,
    listing_of,
    make_project,
    mcp_env,
    plugin_cache,
    plugin_files,
    run_cli,
    skill_steps,
    v1_passed_and_committed,
)

pytestmark = pytest.mark.timeout(300)


def test_codex_lists_the_skill_and_a_session_that_follows_it_passes_v1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = installed_cli(CODEX)
    project, home = make_project(tmp_path, "codex", capsys)
    ws = project / "kernel_opt_add"
    (home / ".codex").mkdir()
    server_env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in mcp_env(home).items())
    args = json.dumps(["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"])
    (home / ".codex" / "config.toml.in").write_text(
        CODEX_PROVIDER + f"\n[mcp_servers.kernelopt]\ncommand = {json.dumps(sys.executable)}\nargs = {args}\n"
        f"env = {{ {server_env} }}\nstartup_timeout_sec = 120\ntool_timeout_sec = 240\n"
        'default_tools_approval_mode = "approve"\n'
    )
    edit = [ToolCall.shell(f"sed -i 's/BLOCK = 64/BLOCK = 1024/' {ws / 'kernel.py'}")]
    load = ToolCall.shell(f"cat .agents/skills/{SKILL_NAME}/SKILL.md")
    model = FollowsTheSkill(ToolCall.shell("sleep 2"), skill_steps(ws, load, edit))
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "sk-test-0123456789abcdef0123456789",
    }
    prompt = "Optimize the kernel in src/ with kernelopt, following the kernel-optimization skill."
    argv = [str(exe), "exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write"]
    argv += ["-c", "allow_login_shell=false", prompt]
    server, wall_s = run_cli(argv, project, env, model)
    requests = server.model_requests()
    listing = listing_of(requests[0], "<skills_instructions>")
    assert f"`{project / '.agents' / 'skills'}`" in listing, listing  # the project's skills folder, a root
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing and f"/{SKILL_NAME}/SKILL.md)" in listing, listing
    assert {f"{MCP}{t}" for t in TOOLS} <= set(requests[-1].tool_names())
    outputs = codex_outputs(requests[-1])
    assert "One category per iteration" in outputs["exec_command"]  # the skill's text, read
    assert '"next":"profile"' in outputs["mcp__kernelopt.status"].replace(" ", "")
    assert "duration_us" in outputs["mcp__kernelopt.evidence"]
    assert '"result":"PASS"' in outputs["mcp__kernelopt.validate"].replace(" ", "")
    assert not model.steps, f"steps left: {model.steps}"
    v1_passed_and_committed(ws)
    print(f"codex exec session: {wall_s:.1f} s, {len(requests)} model requests, {model.waits} waits for the server")


def test_codex_lists_a_skill_installed_for_the_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = installed_cli(CODEX)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert main(["agent", "install", "codex", "--user"]) == 0
    capsys.readouterr()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "sk-test-0123456789abcdef0123456789",
    }
    argv = [str(exe), "exec", "--skip-git-repo-check", "--ephemeral", "say ok"]
    listing = listing_of(first_request(argv, elsewhere, env), "<skills_instructions>")
    assert f"`{home / '.agents' / 'skills'}`" in listing, listing  # ~/.agents/skills, a skill root
    assert f"- {SKILL_NAME}: Make a GPU kernel" in listing, listing


def test_the_repository_is_a_codex_plugin_whose_skill_is_listed(tmp_path: Path) -> None:
    exe = installed_cli(CODEX)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    checkout = plugin_files(tmp_path / "checkout", (".agents", "plugins"))
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),  # the CLI's own scratch stays in the test session's folder
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "sk-test-0123456789abcdef0123456789",
    }
    for argv in (["plugin", "marketplace", "add", str(checkout)], ["plugin", "add", "kernelopt@kernelopt"]):
        out = subprocess.run([str(exe), *argv], env=env, capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, (argv, out.stdout[-800:], out.stderr[-800:])
    assert plugin_cache(home / ".codex" / "plugins" / "cache") == PLUGIN_FILES  # the plugin's folder, not .git
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = [str(exe), "exec", "--skip-git-repo-check", "--ephemeral", "say ok"]
    listing = listing_of(first_request(argv, elsewhere, env), "<skills_instructions>")
    assert f"- kernelopt:{SKILL_NAME}: Make a GPU kernel" in listing, listing


def test_codex_cancels_a_call_at_its_tool_timeout_and_status_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex 0.171.0 cancels an MCP call at `tool_timeout_sec` (`notifications/cancelled`, "MCP request cancelled by
    caller") and tells the model only "timed out awaiting tools/call after 2s"; the server stops the call, rolls its
    stage back, and `status` names the cancel and the setting to raise (docs/agents.md, the trial of 2026-12-05)."""
    exe = installed_cli(CODEX)
    project, home = make_project(tmp_path, "codex", capsys)
    ws = project / "kernel_opt_add"
    (home / ".codex").mkdir()
    server_env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in mcp_env(home).items())
    args = json.dumps(["-m", "kernelopt", "mcp", "--root", str(project), "--device", "cpu"])
    (home / ".codex" / "config.toml.in").write_text(
        CODEX_PROVIDER + f"\n[mcp_servers.kernelopt]\ncommand = {json.dumps(sys.executable)}\nargs = {args}\n"
        f"env = {{ {server_env} }}\nstartup_timeout_sec = 120\ntool_timeout_sec = 2\n"
        'default_tools_approval_mode = "approve"\n'
    )
    steps = [
        ToolCall.mcp("kernelopt", "init", {"name": "add", "kernel": "src/kernel.py", "reference": "src/reference.py"}),
        ToolCall.mcp("kernelopt", "profile", {"workspace": str(ws)}),  # V0's gate alone takes longer than 2 s
        ToolCall.mcp("kernelopt", "status", {"workspace": str(ws)}),
    ]
    model = FollowsTheSkill(ToolCall.shell("sleep 2"), steps)
    env = {
        "PATH": f"{exe.parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "sk-test-0123456789abcdef0123456789",
    }
    argv = [str(exe), "exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write"]
    argv += ["-c", "allow_login_shell=false", "Optimize the kernel in src/ with kernelopt."]
    server, wall_s = run_cli(argv, project, env, model)
    outputs = codex_outputs(server.model_requests()[-1])
    assert "timed out awaiting tools/call after 2s" in outputs["mcp__kernelopt.profile"], outputs
    status = outputs["mcp__kernelopt.status"]
    assert "the last profile call was cancelled by the client after 2 s" in status, status
    assert "tool_timeout_sec" in status and '"next":"profile"' in status.replace(" ", ""), status
    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True)
    assert len(log.stdout.splitlines()) == 1, log.stdout  # only init's commit: V0 was never recorded
    print(f"codex exec session with a cancelled profile: {wall_s:.1f} s")
