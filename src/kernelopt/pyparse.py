"""Python source parsed into an :mod:`ast` tree, one thread at a time.

CPython 3.11 builds the Python objects of a parsed tree under one recursion counter per interpreter (``ast2obj``),
not per thread: two threads parsing at once can fail either parse with "SystemError: AST constructor recursion depth
mismatch (before=33, after=182)" (python/cpython#106905). kernelopt parses in more than one thread: ``batch``
prepares its next problem in a thread while the current one is checked, and that error was the batch row of a
correct kernel on a fresh clone (2026-12-07, Python 3.11.7). Every parse of a source text in kernelopt goes through
:func:`parse` (and a string's literal through :func:`literal`), under one lock."""

from __future__ import annotations

import ast
import threading
from typing import Any, Literal

_PARSING = threading.RLock()  # re-entered where a finalizer run inside a parse parses again


def parse(source: str | bytes, filename: str = "<unknown>", mode: Literal["exec", "eval"] = "exec") -> Any:
    """``ast.parse(source, filename, mode)``, one thread at a time (the module's docstring says why)."""
    with _PARSING:
        return ast.parse(source, filename=filename, mode=mode)


def literal(source: str | ast.AST) -> Any:
    """``ast.literal_eval(source)``: a string is parsed under :func:`parse`'s lock (a node is read as it is)."""
    if isinstance(source, str):
        source = parse(source.lstrip(" \t"), mode="eval")
    return ast.literal_eval(source)
