"""``kernelopt schema memory|sweep``: print the JSON Schema of a persisted record."""

from __future__ import annotations

import sys
from enum import StrEnum

import typer


class SchemaName(StrEnum):
    """The records whose JSON Schema ships with the package."""

    MEMORY = "memory"  # memory/v<N>.json, the iteration record
    SWEEP = "sweep"  # a sweep file (schema 1), docs/sweep-format.md


def register(app: typer.Typer) -> None:
    @app.command("schema")
    def schema(
        what: SchemaName = typer.Argument(
            SchemaName.MEMORY, help="Which schema: memory (iteration record) or sweep (sweep file)."
        ),
    ) -> None:
        """Print the JSON Schema of memory/v<N>.json or of a sweep file (generated from the record model)."""
        if what is SchemaName.SWEEP:
            from kernelopt.tuning.record import render_sweep_schema

            sys.stdout.write(render_sweep_schema())
            return
        from kernelopt.memory.schema import render_schema

        sys.stdout.write(render_schema())
