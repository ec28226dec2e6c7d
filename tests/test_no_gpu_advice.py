"""The no-GPU error names what its caller can pass (docs/faults.md, "Agents and CLI leftovers"): the CLI's
``--device cpu``; through the MCP server, ``device="cpu"`` for the tools that take it (profile, tune) and the
server's own ``--device cpu`` for the stage tools that run on its device. The wording is made once
(:class:`kernelopt.errors.NoGpu`); each boundary gives its form.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.errors import NoGpu
from kernelopt.workspace import Workspace

pytestmark = pytest.mark.timeout(120)


def _stage_one_no_gpu(ws: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> NoGpu:
    """The error Stage 1's NVIDIA runner raises when its driver finds no CUDA device (the driver's run faked:
    the rest is the runner's own code)."""
    from kernelopt.proc import CommandResult
    from kernelopt.profiling import nvidia
    from kernelopt.profiling.ncu_failures import NO_CUDA_DEVICE
    from kernelopt.profiling.protocol import ProfileSettings

    said = CommandResult(
        argv=("python",),
        returncode=1,
        stdout="",
        stderr=f"RuntimeError: {NO_CUDA_DEVICE}",
        duration_s=0.1,
        timed_out=False,
    )
    monkeypatch.setattr(nvidia, "run_command", lambda *args, **kwargs: said)
    monkeypatch.setattr(nvidia, "log_path", lambda *args: tmp_path / "driver.log")
    with pytest.raises(NoGpu) as caught:
        nvidia.NcuProfiler(ncu="ncu")._run_driver(ws, 0, ProfileSettings(), "time", tmp_path / "d.json", 10.0)
    return caught.value


def _refusal(server: Any, tool: str, **arguments: Any) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    async def go() -> Any:
        return await server.call_tool(tool, arguments)

    with pytest.raises(ToolError) as caught:
        anyio.run(go)
    said = str(caught.value)
    assert "\n" not in said and "Traceback" not in said, said
    return said.removeprefix(f"Error executing tool {tool}: ")


def test_the_no_gpu_error_names_what_the_caller_can_pass(
    add_workspace: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Through the MCP server `profile(workspace)` said "`--device cpu` takes timing-only evidence on the CPU",
    an option no tool has: it now names the argument, or the server's setting where the tool has no argument."""
    from kernelopt.agents import drive
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    ws = add_workspace
    error = _stage_one_no_gpu(ws, monkeypatch, tmp_path)
    assert error.one_line() == (  # the CLI's words (kernelopt profile, optimize)
        "no NVIDIA GPU found: torch sees no CUDA device; run `kernelopt doctor` to check the setup; --device cpu "
        "takes timing-only evidence on the CPU"
    )

    def no_gpu(*args: object, **kwargs: object) -> None:
        raise error

    for name in ("profile", "validate", "record"):
        monkeypatch.setattr(drive, name, no_gpu)
    server = build_server(Roots([ws.root.parent]))
    said = _refusal(server, "profile", workspace=str(ws.root))
    assert said == (
        "no NVIDIA GPU found: torch sees no CUDA device; run `kernelopt doctor` to check the setup; "
        'device="cpu" takes timing-only evidence on the CPU'
    ), said
    for tool in ("validate", "record"):  # no device argument: the server's own setting
        said = _refusal(server, tool, workspace=str(ws.root))
        assert "--device cpu (`kernelopt mcp --root DIR --device cpu`) takes timing-only" in said, said
        assert 'device="cpu"' not in said, said  # no argument the tool lacks


def test_the_cli_tune_says_its_own_flag(
    add_workspace: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt tune` with no GPU: the same error class, the CLI's flag."""
    from kernelopt.cli.app import main

    monkeypatch.setattr("kernelopt.cli.optimize.nvidia_gpu_present", lambda: False)
    assert main(["tune", str(add_workspace.root)]) == 3
    assert capsys.readouterr().err == (
        "kernelopt: error: no NVIDIA GPU found; run `kernelopt doctor`; --device cpu tunes torch CPU kernels and "
        "Triton kernels (interpreted)\n"
    )
