"""Rendering for the CLI: JSON for machines, rich tables for people. The only place that prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table


def _console(stderr: bool = False) -> Console:
    """A console bound to the current stdout/stderr; 200 columns when not a terminal (pipes, logs)."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 200
    return Console(file=stream, highlight=False, width=width)


def _plain(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, list | tuple):
        return [_plain(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def emit_json(obj: Any) -> None:
    """Print ``obj`` (model, list, dict) as indented JSON on stdout."""
    sys.stdout.write(json.dumps(_plain(obj), indent=2, default=str) + "\n")


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell: ``n/a`` for None, 4 significant digits for floats."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def table(title: str | None, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a rich table."""
    t = Table(title=title, show_lines=False)
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*(fmt(v) for v in r))
    _console().print(t)


def info(text: str) -> None:
    _console().print(text, markup=False, soft_wrap=True)


def warn(text: str) -> None:
    _console(stderr=True).print(f"warning: {text}", markup=False, soft_wrap=True)
