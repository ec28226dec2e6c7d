"""A new user's first hour on a fresh clone after the day's changes, second trial (2026-12-05), one test per
fix (docs/faults.md, "A new user's first hour, second trial")."""

from __future__ import annotations

import pytest

from kernelopt.cli.app import main


@pytest.mark.timeout(30)
@pytest.mark.parametrize("argv", [[], ["memory"], ["wiki"], ["agent"]])
def test_a_command_given_alone_prints_its_help_and_no_empty_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt` alone (and a group alone) printed the help, then "kernelopt: error: ; see `kernelopt --help`",
    exit 2: click's usage error for "no arguments, so the help" has no message."""
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Usage: kernelopt" in out and "COMMAND" in out
    assert err == ""
