"""The coding-agent CLIs kernelopt knows (backends/coding_agents.py): version checks, infrastructure failures
told apart from failures of the work, and the JSON-lines output of Claude Code and Codex read back.

The output lines are what Claude Code 2.1.197 and Codex 0.171.0 printed against tests/model_server.py
(2026-12-05), cut to the fields that are read.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from kernelopt.backends.agent_cli import _version_problem, check_command
from kernelopt.backends.coding_agents import (
    CLAUDE_CODE,
    CODEX,
    infrastructure_failure,
    known_agent,
    read_output,
    version_problem,
)
from kernelopt.errors import EnvironmentProblem

pytestmark = pytest.mark.timeout(60)

CLAUDE_STREAM = "\n".join(
    json.dumps(e)
    for e in [
        {"type": "system", "subtype": "init", "model": "claude-opus-4-8", "tools": ["Bash", "Write"]},
        {
            "type": "assistant",
            "message": {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]},
        },
        {"type": "user", "message": {"content": [{"type": "tool_result", "content": "kernel.py", "is_error": False}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "NO_NEW_ACTION: all tried"}]}},
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "api_error_status": None,
            "num_turns": 2,
            "result": "NO_NEW_ACTION: all tried",
        },
    ]
)
CODEX_JSON = "\n".join(
    json.dumps(e)
    for e in [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {
                "type": "command_execution",
                "command": "/bin/bash -c ls",
                "aggregated_output": "kernel.py\n",
                "exit_code": 0,
            },
        },
        {"type": "item.completed", "item": {"type": "agent_message", "text": "finished"}},
        {"type": "turn.completed", "usage": {"input_tokens": 20}},
    ]
)


def test_known_agents_and_their_versions() -> None:
    assert known_agent("/opt/x/bin/claude") is CLAUDE_CODE and known_agent("codex") is CODEX
    assert known_agent("python3") is None
    assert CLAUDE_CODE.install == "npm install -g @anthropic-ai/claude-code@2.1.197"
    assert version_problem(CLAUDE_CODE, "2.1.197 (Claude Code)\n") is None
    assert version_problem(CLAUDE_CODE, "2.2.0 (Claude Code)") is None  # newer is fine
    assert version_problem(CODEX, "codex-cli 0.171.0") is None
    assert version_problem(CODEX, "codex-cli 0.98.3") == (
        "Codex 0.98.3 is older than 0.171.0, the version kernelopt's command lines are tested with"
    )
    assert "did not name a Claude Code version" in (version_problem(CLAUDE_CODE, "usage: ...") or "")


def test_infrastructure_failures_are_told_from_failures_of_the_work() -> None:
    assert (
        infrastructure_failure("Not logged in · Please run /login")
        == "not logged in: Not logged in · Please run /login"
    )
    assert (
        infrastructure_failure("warning: x\nERROR: Missing environment variable: `OPENAI_API_KEY`.") or ""
    ).startswith("no API key: ")
    assert (
        infrastructure_failure("API Error: 500 scripted server error. This is a server-side issue") or ""
    ).startswith("API error: ")
    assert (infrastructure_failure("ERROR: We’re currently experiencing high demand") or "").startswith(
        "API error"
    )  # Codex on a 5xx
    assert infrastructure_failure("Traceback ...\nAssertionError: kernel.py mismatch at [3, 4]") is None
    assert infrastructure_failure("latency 401 us, 500 samples") is None


def test_stream_json_and_codex_json_are_read() -> None:
    c = read_output(CLAUDE_STREAM)
    assert c.final_text == "NO_NEW_ACTION: all tried" and c.error is None and c.json_events == 5
    assert 'tool call Bash: {"command": "ls"}' in c.steps and "tool result: kernel.py" in c.steps
    x = read_output(CODEX_JSON)
    assert x.final_text == "finished" and "command (exit 0): /bin/bash -c ls" in x.steps
    plain = read_output("I wrote the plan.\nNO_NEW_ACTION: nothing left\n")
    assert plain.final_text.endswith("NO_NEW_ACTION: nothing left\n") and plain.steps == [] and plain.json_events == 0
    failed = read_output(
        json.dumps({"type": "result", "is_error": True, "api_error_status": 500, "result": "API Error"})
    )
    assert failed.error == "API error 500: API Error"
    err = read_output(json.dumps({"type": "turn.failed", "error": {"message": "unexpected status 500"}}))
    assert err.error == "unexpected status 500"


def _fake_cli(folder: Path, name: str, version_line: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_a_missing_or_old_cli_is_one_line_naming_the_install_command(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    with pytest.raises(EnvironmentProblem) as missing:
        check_command("claude -p {prompt_file}")
    assert missing.value.one_line().startswith("agent command not found: 'claude' (Claude Code)")
    assert "npm install -g @anthropic-ai/claude-code@2.1.197" in missing.value.one_line()
    _fake_cli(tmp_path, "codex", "codex-cli 0.100.0")
    _version_problem.cache_clear()
    with pytest.raises(EnvironmentProblem) as old:
        check_command("codex exec {prompt_file}")
    assert "Codex 0.100.0 is older than 0.171.0" in old.value.one_line()
    assert "npm install -g @openai/codex@0.171.0" in old.value.one_line()
    _fake_cli(tmp_path, "codex", "codex-cli 0.171.2")
    _version_problem.cache_clear()
    check_command("codex exec {prompt_file}")  # a newer patch release is fine
    _version_problem.cache_clear()


def test_the_documented_command_lines_are_the_tested_ones() -> None:
    """docs/agents.md shows each CLI's command exactly as the real-CLI tests run it (CodingAgent.command)."""
    text = (Path(__file__).parents[1] / "docs" / "agents.md").read_text()
    for agent in (CLAUDE_CODE, CODEX):
        assert f"'{agent.command}'" in text, agent.product
        assert agent.install in text


def test_optimize_with_a_missing_cli_is_one_line_before_any_workspace(tmp_path: Path, monkeypatch, capsys) -> None:
    """Issue 33, bad input: not a FAIL at V1, but one line at the start naming the install command."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    rows = Path(__file__).parent / "data" / "agents" / "rows"
    root = tmp_path / "root"
    root.mkdir()
    args = ["optimize", str(rows), "--root", str(root), "--device", "cpu", "--planner", "agent-cli"]
    code = main([*args, "-P", "command=claude -p {prompt_file}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3 and err[-1] == (
        "kernelopt: error: agent command not found: 'claude' (Claude Code); "
        "install it: npm install -g @anthropic-ai/claude-code@2.1.197"
    )
    assert list(root.iterdir()) == []  # nothing was made


def test_command_lines_that_lack_the_clean_flags_are_told_what_they_cost() -> None:
    from kernelopt.backends.agent_cli import build_argv
    from kernelopt.backends.coding_agents import command_advice

    for agent in (CLAUDE_CODE, CODEX):  # the documented lines carry every flag
        assert command_advice(build_argv(agent.command, {"prompt_file": "p.md"})) == []
    old_claude = 'claude -p "Read p.md" --permission-mode acceptEdits --allowedTools "Read,Edit,Write"'
    said = command_advice(build_argv(old_claude, {}))
    assert len(said) == 2 and "~/.claude/projects/" in said[0] and "acceptEdits lets Claude Code write" in said[1]
    said = command_advice(build_argv('codex exec --sandbox workspace-write "Read p.md"', {}))
    assert len(said) == 4 and "login shell" in said[0] and "shell_snapshots" in said[1] and "/tmp" in said[3]
    assert command_advice(["python3", "agent.py"]) == []
