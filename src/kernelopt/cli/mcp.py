"""``kernelopt mcp --root DIR [--root DIR ...] [--device cuda|cpu]``: the MCP server on stdin/stdout."""

from __future__ import annotations

from pathlib import Path

import typer

from kernelopt.cli.output import printing
from kernelopt.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    def mcp_cmd(
        root: list[Path] = typer.Option(
            ..., "--root", help="A folder the server may touch (repeatable): workspaces, kernels and reports under it."
        ),
        device: str | None = typer.Option(None, "--device", help="cuda or cpu: the stage tools' default device."),
    ) -> None:
        """An MCP server (stdio) whose tools are kernelopt's stages: the agent drives, kernelopt enforces the rules."""
        from kernelopt.agents.mcp_server import serve
        from kernelopt.agents.roots import Roots

        if device not in (None, "cuda", "cpu"):
            raise UsageError(f"unknown device {device!r}", hint="use cuda or cpu")
        try:
            serve(Roots(list(root)), device=device)
        except BaseExceptionGroup as group:
            _client_gone(group)


def _client_gone(group: BaseExceptionGroup) -> None:
    """The SDK's answer when the client closed its end while a reply was written (an agent killed mid-call): a group
    of ``BrokenPipeError``, raised as stdout's one line, exit 3 (:func:`~kernelopt.cli.output.printing`); it was
    "kernelopt: internal error: ExceptionGroup" and a crash log. Any other group is raised as it is."""
    gone, rest = group.split((BrokenPipeError, ConnectionResetError))
    if gone is None or rest is not None:
        raise group
    first: BaseException = gone
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    with printing():
        raise first
