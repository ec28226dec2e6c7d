"""The one test of an integer or a number (kernelopt.numeric): a bool is an int to Python, never to kernelopt."""

from __future__ import annotations

import re
from pathlib import Path

from kernelopt.numeric import is_int, is_number, plain_int

ROOT = Path(__file__).resolve().parents[1]


def test_a_bool_is_neither_an_integer_nor_a_number() -> None:
    assert [is_int(v) for v in (3, 0, -2, True, False, 3.0, "3", None)] == [True] * 3 + [False] * 5
    assert [is_number(v) for v in (3, 2.5, float("inf"), True, "2.5", None)] == [True] * 3 + [False] * 3
    assert [plain_int(v) for v in (64, True, 64.0)] == [64, None, None]


def test_the_rule_is_written_out_nowhere_else() -> None:
    """``isinstance(x, int) and not isinstance(x, bool)`` and its variants: each was a copy free to forget the bool
    (61 lines of src, benchmarks and scripts before the fifteenth session); the code, the benchmarks and the scripts call kernelopt.numeric."""
    written = re.compile(
        r"isinstance\([^()]*, (int|int \| float)\) and not isinstance\([^()]*, bool\)"
        r"|isinstance\([^()]*, bool\) or not isinstance\([^()]*, int\b"
        r"|not isinstance\([^()]*, int\) or isinstance\([^()]*, bool\)"
        r"|type\([^()]*\) (is int\b|in \(int, float\))"
    )
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("src", "benchmarks", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "numeric.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if written.search(line)
    ]
    assert found == []
    assert written.search("if isinstance(value, bool) or not isinstance(value, int | float):")
