"""Command-line KEY=VALUE values: decimal, never octal or hex; text stays text; no silent repeats."""

from __future__ import annotations

import pytest

from kernelopt.backends.settings import parse_assignments
from kernelopt.errors import UsageError


def test_values_are_decimal_and_text_stays_text() -> None:
    got = parse_assignments(["BLOCK_M=020", "a=0100", "b=0x40", "timeout_s=1.5", "command=true", "t={prompt_file}"])
    assert got == {"BLOCK_M": 20, "a": 100, "b": "0x40", "timeout_s": 1.5, "command": "true", "t": "{prompt_file}"}


def test_a_key_given_twice_is_refused() -> None:
    with pytest.raises(UsageError, match="given twice"):
        parse_assignments(["BLOCK_M=up", "BLOCK_M=down"])
