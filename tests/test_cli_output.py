"""The CLI fits the terminal: tables stay within COLUMNS (100 when piped), and --help shows flags as flags."""

from __future__ import annotations

import io

import pytest

from kernelopt.cli import output
from kernelopt.cli.app import main

pytestmark = pytest.mark.timeout(60)

WIDE_COLUMNS = [f"column number {i}" for i in range(12)]
WIDE_ROWS = [[f"value {r}.{c} with some words" for c in range(12)] for r in range(3)]


def test_width_from_columns_else_100_when_piped() -> None:
    pipe = io.StringIO()
    assert output.width_of(pipe, {}) == 100
    assert output.width_of(pipe, {"COLUMNS": "72"}) == 72
    assert output.width_of(pipe, {"COLUMNS": "junk"}) == 100


@pytest.mark.parametrize("columns", [None, "80", "140"])
def test_wide_tables_fit_the_width(
    columns: str | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    output.table("a wide table", WIDE_COLUMNS, WIDE_ROWS)
    lines = capsys.readouterr().out.splitlines()
    limit = int(columns or 100)
    assert lines and max(len(line) for line in lines) <= limit
    text = "".join(lines)
    assert "val" in text  # content is folded into the cells, not cut away


def test_help_shows_plain_flags_as_flags(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["validate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--json" in out and "--no-previous" in out
    assert "<bool>" not in out
    assert "<float>" in out and "v<N>" in out  # options that take a value still show their type (a version: v<N>)
