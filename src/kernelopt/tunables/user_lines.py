"""A note's line numbers in the user's file: the rules read the text an edit would write, the user reads kernel.py.

The guard's rules (:mod:`kernelopt.tunables.guard`) judge the edited text and find each line by its position
there; an edit that adds lines (a table's ``if N <= 1024:  # kernelopt: tuned`` above a launch) moves every line
below it, so "line 298" of the edited text is line 297 of the file the user has (breaker19's d5). A line the edit
kept (or only changed, a literal moved in place) is named by its number in the user's file; a line the edit adds
has no number there and is named by the user's line it follows.
"""

from __future__ import annotations

import difflib
import re

# "line 298", "lines 12", "kernel.py:298": the forms the rules' notes name a line in
_LINE = re.compile(r"\b(?P<word>lines? )(?P<n>\d+)\b|\b(?P<file>kernel\.py:)(?P<m>\d+)\b")


#: how alike a changed line is to the user's line it stands for (a literal moved: ``b = 2`` -> ``b = 20``)
_ALIKE = 0.6


def user_line(before: str, after: str, line: int) -> int | None:
    """Line ``line`` (1-based) of ``after`` as the same line of ``before``: kept as it was, or changed in place
    (in a run of lines the edit replaced, paired in order with a user's line alike to it); ``None`` for a line
    ``after`` adds."""
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if not j1 < line <= j2:
            continue
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            return i1 + line - j1
        if tag == "replace":
            return _paired(old[i1:i2], new[j1:j2], line - j1 - 1, i1)
        return None
    return None


def _paired(old: list[str], new: list[str], at: int, offset: int) -> int | None:
    """The user's line (1-based, ``offset`` the run's start) paired with ``new[at]``: each of ``old`` in order with
    the first line of ``new`` after the last paired that is alike to it; ``None`` where ``new[at]`` pairs none."""
    j = 0
    for i, text in enumerate(old):
        k = next((k for k in range(j, len(new)) if difflib.SequenceMatcher(None, text, new[k]).ratio() >= _ALIKE), None)
        if k is None:
            continue
        if k == at:
            return offset + i + 1
        j = k + 1
    return None


def _added_after(before: str, after: str, line: int) -> int:
    """The last line of ``before`` above line ``line`` of ``after`` (0: above the first)."""
    return next((n for k in range(line - 1, 0, -1) if (n := user_line(before, after, k)) is not None), 0)


def in_user_lines(note: str | None, before: str, after: str) -> str | None:
    """``note`` (a rule's words about ``after``, the edited text) with every line it names numbered as in
    ``before``, the user's file; a line the edit adds is "a line the edit adds after line N"."""
    if note is None or before == after or not _LINE.search(note):
        return note

    def renumber(match: re.Match[str]) -> str:
        prefix, number = (match["word"], match["n"]) if match["word"] else (match["file"], match["m"])
        at = user_line(before, after, int(number))
        if at is not None:
            return f"{prefix}{at}"
        above = _added_after(before, after, int(number))
        where = f"after line {above}" if above else "at the top of the file"
        return f"a line the edit adds {where}" if match["word"] else f"{prefix}{above} (a line the edit adds below it)"

    return _LINE.sub(renumber, note)
