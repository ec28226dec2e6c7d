"""A new user's first hour with README and docs on a fresh clone (2026-12-05), one test per fix
(docs/faults.md, "A new user's first hour, 2026-12-05")."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(30)
def test_a_table_wider_than_the_console_folds_its_wide_column_and_keeps_every_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """tune's per-shape table, piped (100 columns), lost its last column ("current's latency" cut to "current's
    lat"): Rich cannot fold a column below its min_width, so it cropped the table at the right edge."""
    from kernelopt.cli.output import table

    monkeypatch.delenv("COLUMNS", raising=False)
    columns = ["shape", "its own best", "latency", "chosen's latency", "chosen vs its best", "current's latency"]
    rows = [
        ["n=4096", "BLOCK=4096", 8.956, 8.956, "+0.0 %", 338.9],
        ["n=1000", "BLOCK=1024, num_warps=4, num_stages=3", 7.823, 8.285, "+5.9 %", 88.62],
    ]
    table("per shape (latency, us)", columns, rows, wide="its own best")
    lines = capsys.readouterr().out.splitlines()
    framed = [line for line in lines if line.strip() and line.lstrip()[0] in "┏┃┡│└"]
    assert framed and all(len(line) <= 100 and line.rstrip()[-1] in "┓┃┩│┘" for line in framed), lines
    assert "338.9" in "\n".join(lines) and "88.62" in "\n".join(lines)
    table("t", ["", "configuration", "latency (us)"], [["current", "BLOCK=64", 427.6]], wide="configuration")
    narrow = capsys.readouterr().out
    assert "│ BLOCK=64                 │" in narrow  # a table that fits keeps the wide column's 24 characters
