"""Foundation: the one rule for making a text one line of at most N characters.

Whitespace (newlines included) is folded to single spaces, and a text over the limit is cut at the last
space before it, never inside a word or a number ("1000 of 1000 elements" is never shown as "1000 of
100"), with ``...`` marking the cut. Every reason, message and table cell kernelopt shortens goes through
:func:`one_line`. A path written into a command that a line tells the user to run goes through :func:`shell_word`.
This module imports only the standard library's ``re`` and ``shlex``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePath

ELLIPSIS = "..."


def one_line(text: str, limit: int) -> str:
    """``text`` with whitespace folded, cut at a word boundary to at most ``limit`` characters.

    A single word longer than the limit (a path, a hash) is cut inside it, since nothing else fits.
    """
    folded = " ".join(text.split())
    if len(folded) <= limit:
        return folded
    room = max(limit - len(ELLIPSIS), 1)
    head = folded[: room + 1]
    cut = head.rfind(" ")
    kept = head[:cut] if cut > 0 else folded[:room]
    return kept.rstrip(" ,;:") + ELLIPSIS


def first_line(text: str, limit: int) -> str:
    """The first non-empty line of ``text``, cut as :func:`one_line` does; empty when there is none.

    A first line that announces what follows (it ends with ``:``) takes the next non-empty line with it: torch's
    "randn() received an invalid combination of arguments - got (float, ...), but expected one of:" alone said
    neither what was expected nor that anything was cut.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    said = compiler_error(lines)
    if said is not None:
        return one_line(said, limit)
    if lines[0].rstrip().endswith(":") and len(lines) > 1:
        return one_line(f"{lines[0]} {lines[1]}", limit)
    return one_line(lines[0], limit)


#: torch's failed extension build (``load_inline`` / ``load``): "Error building extension 'NAME': " and then the
#: build's whole log, whose first line is the compiler's command line.
_BUILD_FAILED = re.compile(r"^(Error building extension '[^']*'):")
#: A compiler's error line: gcc/clang ``main.cpp:7:3: error: ...`` (or ``fatal error``), nvcc ``k.cu(7): error: ...``,
#: the linker's ``undefined reference``; its path's folders (the build folder) are dropped, the file's name kept.
_COMPILER_ERROR = re.compile(
    r"^\s*(?:\S*/)?(?P<said>[^/\s:()]+(?::\d+(?::\d+)?|\(\d+\)):\s*(?:fatal )?error\b.*"
    r"|[^/\s:()]+\.\w+:.*undefined reference to .*)$"
)


def compiler_error(lines: list[str]) -> str | None:
    """The head of a failed extension build with the compiler's first error line, or None when ``lines`` are not
    one: torch's message is its build log, whose first line is the compiler's command (``[1/2] c++ -MMD -MF ...
    -isystem ...``), so its first line, cut, named no error at all."""
    head = _BUILD_FAILED.match(lines[0])
    if head is None:
        return None
    for line in lines:
        found = _COMPILER_ERROR.match(line)
        if found is not None:
            return f"{head.group(1)}: {found.group('said')}"
    return None


def last_line(text: str, limit: int) -> str:
    """The last non-empty line of ``text``, cut as :func:`one_line` does; empty when there is none."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return one_line(line, limit)
    return ""


def shell_word(word: str | PurePath) -> str:
    """``word`` as one word of a shell command a message shows to be copied (`` `kernelopt optimize WS --resume` ``):
    as it is when the shell reads it so, else quoted (``'/work/my dir/kernel_opt_x'``): a workspace in a folder
    with a space was two words when pasted."""
    return shlex.quote(str(word))
