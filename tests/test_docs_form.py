"""The docs' form (review19): a table row is inside its table, and every foundation module has its row.

A row set apart from its table by a blank line reads as a paragraph of pipes (newuser16's n94 row, landed after a
"Seen, not changed" list; h9 and n86 of docs/faults.md, after a blank line); a module the layers contract names in
its foundation with no row in docs/architecture.md says nothing of what it owns (subreaper)."""

from __future__ import annotations

import fcntl
import os
import re
import time
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


def cells(row: str) -> int:
    """The cells of a table row as GitHub's Markdown splits it: at every ``|`` not escaped, code spans included."""
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


def rows_past_their_header(text: str) -> list[str]:
    """The rows holding more cells than their table's header: GitHub drops the extra ones, and what they said with
    them (a ``|`` in a code span, ``2>&1 | tee log``, splits a cell unless written ``\\|``)."""
    lines = text.split("\n")
    out, head = [], 0
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            continue
        if i == 0 or not lines[i - 1].startswith("|"):
            head = cells(line)
        elif not SEPARATOR.match(line) and cells(line) > head:
            out.append(f"line {i + 1}: {cells(line)} cells under a header of {head}: {line[:60]}")
    return out


def test_a_row_with_a_cell_past_its_header_is_found() -> None:
    table = "| case | now |\n|---|---|\n"
    assert rows_past_their_header(table + "| r1 | `a \\| b` |\n") == []
    assert rows_past_their_header(table + "| r1 | `a | b` |\n") == [
        "line 3: 3 cells under a header of 2: | r1 | `a | b` |"
    ]


@pytest.mark.parametrize("doc", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_no_row_of_the_docs_holds_more_cells_than_its_header(doc: str) -> None:
    """review20 (r10): suite20's s3 row wrote ``waitid(P_ALL, WEXITED | WNOHANG ...)`` in a code span, three more
    cells than its header, whose words GitHub dropped; three older rows did the like."""
    assert rows_past_their_header((ROOT / "docs" / doc).read_text(encoding="utf-8")) == []


def test_every_foundation_module_has_its_row_in_architecture_md() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "layers")["layers"]
    foundation = re.split(r"\s*[:|]\s*", layers[-1])
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [m for m in foundation if f"| `{m}` |" not in architecture] == []


def test_every_lock_file_the_docs_name_is_one_the_code_takes() -> None:
    """fresh22: docs/loop.md named `.kernelopt/loop.lock` and docs/tuning-engine.md `.kernelopt/.tune.lock`, files no
    code has taken since the workspace's one run lock (7f44ef4f) and the user's folder's lock in /tmp/kernelopt-locks
    (842b4ce3): a new user looking for a stuck run's lock looked in the wrong place. Each lock file a user-facing page
    names (a placeholder aside: `<out>`, `NAME`, `*`) is a name the source holds."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py"))
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = [
        (page.name, name)
        for page in pages
        if page.name not in {"faults.md", "results.md"}  # records of what was, not what is
        for name in re.findall(r"`([^`\s]*\.lock)`", page.read_text(encoding="utf-8"))
    ]
    assert any(name == ".kernelopt/served.lock" for _, name in named)  # the pattern finds the names it is for
    stale = [
        (page, name)
        for page, name in named
        if not re.search(r"[<>*]|[A-Z]{3}", name.rsplit("/", 1)[-1]) and name.rsplit("/", 1)[-1] not in source
    ]
    assert not stale


def test_the_refusal_docs_agents_md_quotes_is_the_one_a_held_workspace_gives(tmp_path: Path) -> None:
    """fresh22: docs/agents.md quoted the refusal as `... (pid N); wait for it or stop it`; since late27 (z51) it names
    since when the holder runs, `(pid N) since <time> UTC; ...`. The quote, its placeholders read as any text, is what a
    second take of a held workspace lock says."""
    from kernelopt.errors import UsageError
    from kernelopt.workspace import RunLock

    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    found = re.search(r"are refused with its line, `([^`]*)`", text)
    assert found is not None
    quote = " ".join(found.group(1).split())
    pattern = re.escape(quote).replace(re.escape("<ws>"), ".+").replace(re.escape("<time>"), ".+")
    pattern = pattern.replace(re.escape("(pid N)"), r"\(pid \d+\)")
    lock = RunLock(tmp_path / "kernel_opt_x")
    held = os.open(lock.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)  # another holder: an open file of its own
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(held, f"{os.getpid()} {int(time.time())} optimize\n".encode())  # its record, as a holder writes it
        with pytest.raises(UsageError) as refused:
            lock.acquire()
    finally:
        os.close(held)
    assert re.search(pattern, refused.value.one_line()), (quote, refused.value.one_line())
