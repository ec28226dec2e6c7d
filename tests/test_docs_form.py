"""The docs' form (review19): a table row is inside its table, and every foundation module has its row.

A row set apart from its table by a blank line reads as a paragraph of pipes (newuser16's n94 row, landed after a
"Seen, not changed" list; h9 and n86 of docs/faults.md, after a blank line); a module the layers contract names in
its foundation with no row in docs/architecture.md says nothing of what it owns (subreaper)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEPARATOR = re.compile(r"^\|\s*:?-{3,}")


def rows_outside_tables(text: str) -> list[str]:
    """The rows (``| ...``) that neither continue a table nor head one (a header followed by its ``|---|`` line)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or (i > 0 and lines[i - 1].startswith("|")):
            continue
        if i + 1 >= len(lines) or not SEPARATOR.match(lines[i + 1]):
            out.append(f"line {i + 1}: {line[:80]}")
    return out


def test_a_row_apart_from_its_table_is_found() -> None:
    table = "| case | now |\n|---|---|\n| r1 | fixed |\n"
    assert rows_outside_tables(table + "| r2 | also |\n") == []
    assert rows_outside_tables(table + "\n| r2 | set apart |\n") == ["line 5: | r2 | set apart |"]


@pytest.mark.parametrize("doc", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_every_table_row_of_the_docs_is_inside_its_table(doc: str) -> None:
    assert rows_outside_tables((ROOT / "docs" / doc).read_text(encoding="utf-8")) == []


def test_every_foundation_module_has_its_row_in_architecture_md() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "layers")["layers"]
    foundation = re.split(r"\s*[:|]\s*", layers[-1])
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [m for m in foundation if f"| `{m}` |" not in architecture] == []
