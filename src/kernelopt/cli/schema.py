"""``kernelopt schema memory``: print the JSON Schema of a persisted record."""

from __future__ import annotations

import sys

import typer

from kernelopt.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("schema")
    def schema(
        what: str = typer.Argument("memory", help="Which schema: memory (iteration record)."),
    ) -> None:
        """Print the JSON Schema of memory/v<N>.json (generated from the record model)."""
        if what != "memory":
            raise UsageError(f"unknown schema {what!r}", hint="known: memory")
        from kernelopt.memory.schema import render_schema

        sys.stdout.write(render_schema())
