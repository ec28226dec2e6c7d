"""The MCP tools that stand beside the stages, called in-process: ``tune`` (the tuning engine; kernel.py is never
written) and ``profile`` of a command with its arguments (the ncu command line; one-line refusals)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.agents.command_profile import command_argv, profile_command
from kernelopt.agents.roots import Roots
from kernelopt.errors import EnvironmentProblem

from .test_mcp_server import LOOP


def build_server(roots: Roots, **settings: Any) -> Any:
    """:func:`kernelopt.agents.mcp_server.build_server`, imported at the first call, not when the file is
    collected: every pytest-xdist worker collects every file, and the server's module with the MCP SDK costs
    ~1.5 CPU-s to import, paid in vain by the workers that run no MCP test."""
    from kernelopt.agents.mcp_server import build_server as build

    return build(roots, **settings)


pytestmark = pytest.mark.timeout(120)


def _call(root: Path | Any, tool: str, **arguments: Any) -> Any:
    server = build_server(Roots([root]), default_device="cpu") if isinstance(root, Path) else root

    async def main() -> Any:
        return await server.call_tool(tool, arguments)

    return anyio.run(main)


def test_tune_reports_the_best_configuration_and_leaves_kernel_py_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.1")
    folder = Path(shutil.copytree(LOOP, tmp_path / "add"))
    before = (folder / "kernel.py").read_bytes()
    result = _call(tmp_path, "tune", path=str(folder), budget=2, budget_wall_s=60)
    out = result.structured_content
    assert out["summary"]["current_config"] == {"BLOCK": 64} and out["summary"]["budget"] == 2
    assert out["summary"]["best_config"]["BLOCK"] > 64 and out["summary"]["better"]
    assert f"BLOCK = {out['summary']['best_config']['BLOCK']}" in out["diff"]
    # why, in one line (through Codex, "better": false beside a speedup of 106x said nothing of why: a re-time too
    # noisy to rank the top few keeps the current configuration; docs/agents.md, the trial of 2026-12-05)
    assert re.fullmatch(r"the best beats the current configuration by \+[0-9.]+ % \(2 % asked\)", out["judgement"]), (
        out["judgement"]
    )
    assert (folder / "kernel.py").read_bytes() == before  # the winner goes into a plan, never written here


def test_profile_of_a_command_builds_ncu_argv_and_refuses_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    argv = command_argv("/opt/ncu", ["python3", "train.py", "--steps", "3"], tmp_path / "out")
    assert argv[0] == "/opt/ncu" and argv[-4:] == ["python3", "train.py", "--steps", "3"]
    assert argv[argv.index("--export") + 1] == str(tmp_path / "out" / "command")
    # a user's command never calls cudaProfilerStart: with --profile-from-start off, ncu saw no kernel (H100, 2026-12-05)
    assert argv[argv.index("--profile-from-start") + 1] == "on"
    fake = tmp_path / "ncu"
    fake.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/argv.txt\necho "==WARNING== No kernels were profiled." >&2\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("KERNELOPT_NCU", str(fake))
    with pytest.raises(EnvironmentProblem, match="No kernels were profiled"):
        profile_command(["python3", "train.py"], tmp_path / "fake_prof", launch_count=2)
    said = (tmp_path / "argv.txt").read_text().split("\n")
    assert said[said.index("--profile-from-start") + 1] == "on" and said[said.index("--launch-count") + 1] == "2"
    monkeypatch.setenv("KERNELOPT_NCU", str(tmp_path / "no-ncu"))
    cases = [
        ({"command": ["python3", "-c", "pass"], "out": str(tmp_path / "prof")}, "Nsight Compute (ncu) not found"),
        ({"command": ["python3", "-c", "pass"], "out": "/etc/prof"}, "outside the server's roots"),
        ({"command": ["python3", "-c", "pass"]}, "a command needs out"),
        ({"command": ["true"], "workspace": str(tmp_path)}, "a workspace, or a command"),
        ({}, "a workspace, or a command"),
    ]
    server = build_server(Roots([tmp_path]), default_device="cpu")
    for arguments, words in cases:
        with pytest.raises(ToolError) as caught:
            _call(server, "profile", **arguments)
        message = str(caught.value)
        assert words in message and "\n" not in message and "Traceback" not in message, message
    assert not (tmp_path / "prof").exists()


def test_the_command_refuses_bad_roots_and_devices_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.cli.app import main

    assert main(["mcp", "--root", str(tmp_path / "none")]) == 2
    assert main(["mcp", "--root", str(tmp_path), "--device", "gpu"]) == 2
    assert main(["mcp"]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 3 and "no such folder" in lines[0] and "unknown device 'gpu'" in lines[1], err
    assert "--root" in lines[2] and "Traceback" not in err


class _Client:
    """Stands in for a request's context: collects the progress notifications."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str | None]] = []

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        self.sent.append((progress, message))


def test_a_long_tool_beats_while_a_step_runs_and_a_cancel_reaches_the_worker_at_its_next_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading
    import time

    from kernelopt.agents import mcp_server

    monkeypatch.setattr(mcp_server, "_in_request", lambda ctx: True)
    monkeypatch.setattr(mcp_server, "HEARTBEAT_S", 0.1)
    client = _Client()

    def slow_step(report: Any) -> str:
        report("V1: gate")
        time.sleep(0.4)  # one long step: only the heartbeat speaks
        report("V1: gate done")
        return "ok"

    async def call() -> str:
        return await mcp_server._long(client, slow_step, lock=anyio.Lock())  # type: ignore[arg-type]

    assert anyio.run(call) == "ok"
    values = [v for v, _ in client.sent]
    assert values == sorted(values) and len(set(values)) == len(values)  # increasing, as MCP requires
    beats = [m for _, m in client.sent if m and "running for" in m]
    assert beats and all(m.startswith("V1: gate (running for") for m in beats)
    assert [m for _, m in client.sent if m and "running for" not in m] == ["V1: gate", "V1: gate done"]

    seen: list[str] = []
    release = threading.Event()

    def blocked(report: Any) -> str:
        try:
            report("V1: implement")
            release.wait(10)
            report("V1: implement done")  # the first report after the cancel (or the one before, under load)
        except mcp_server.Cancelled:
            seen.append("cancelled")
            raise
        return "not cancelled"

    async def cancel_it() -> None:
        with anyio.move_on_after(0.2):
            await mcp_server._long(_Client(), blocked, lock=anyio.Lock())  # type: ignore[arg-type]
        seen.append("returned")

    async def both() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(cancel_it)
            await anyio.sleep(0.5)
            release.set()

    anyio.run(both)
    assert seen == ["cancelled", "returned"]  # the call waited for the worker to stop


def test_arguments_that_fail_a_tools_schema_are_one_line(tmp_path: Path) -> None:
    """A fresh-user trial: `status {}` or `compare before="v0"` came back as pydantic's several lines and a
    documentation link."""
    from mcp.server.mcpserver.exceptions import ToolError

    for tool, arguments, words in (
        ("status", {}, "status: bad arguments: workspace: field required"),
        ("compare", {"workspace": str(tmp_path), "before": "v0", "after": "v9"}, "compare: bad arguments: before"),
    ):
        with pytest.raises(ToolError) as exc:
            _call(tmp_path, tool, **arguments)
        assert words in str(exc.value) and "\n" not in str(exc.value), str(exc.value)
