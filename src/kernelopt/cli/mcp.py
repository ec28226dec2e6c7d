"""``kernelopt mcp --root DIR [--root DIR ...] [--device cuda|cpu]``: the MCP server on stdin/stdout."""

from __future__ import annotations

from pathlib import Path

import typer

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
        serve(Roots(list(root)), device=device)
