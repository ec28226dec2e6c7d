"""Which lines of the reference's own code a run of the reference executes (worker side).

The check runs the reference in its own dtype (the kernel's peer) and in float64 (the values' truth), and reads
the difference between the two as the reference's own rounding error, which widens the tolerance
(:mod:`kernelopt.harness.compare`). A reference that branches on its dtype (``if x.dtype == torch.float16:``)
computes something else in float64: the difference is then the branch, not rounding, and widening by it would
let a kernel that leaves the branch's work out pass. :mod:`kernelopt.harness.draws` tells a float64 run that
drew other random numbers; this module tells one that took another path through the reference's own code: the
lines each run executed there (:class:`LineTrace`) differ.

The reference's own code (:class:`OwnCode`) is reference.py and every Python file it runs that is not an
installed library: a helper module beside it (``from norms import rms``), in a package of the problem's folder,
or anywhere on the path that is not the standard library, a ``site-packages`` / ``dist-packages`` folder,
kernelopt itself, or torch / triton / numpy wherever they were installed from. A branch in a library (torch's
own dtype dispatch) is the library's, the same in the kernel's world, and is not traced.

The cost: a ``sys.settrace`` hook that answers each new frame with one dictionary look-up of its file (the
verdict is cached per file) and returns at once for a library's frame, recording the line numbers of the
reference's own frames only (microseconds per call of the reference).
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

LIBRARY_FOLDER_NAMES = frozenset({"site-packages", "dist-packages"})
"""A file under a folder of one of these names is an installed library's (pip's and Debian's names)."""

LIBRARY_PACKAGES = ("torch", "triton", "numpy", "kernelopt")
"""Packages whose files are never the reference's own, wherever they were installed from (a source checkout of
torch on ``PYTHONPATH``, kernelopt installed editable): found through ``sys.modules``, never imported here."""

Line = tuple[str, int]
"""A line the reference ran: its file (as code objects name it) and its line number."""


@lru_cache(maxsize=1)
def _standard_roots() -> tuple[str, ...]:
    """The interpreter's library folders: the standard library and the site folders (each with a trailing
    separator), read once per process."""
    paths = sysconfig.get_paths()
    found = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    found += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    found.append(site.getusersitepackages() if hasattr(site, "getusersitepackages") else None)
    return tuple(os.path.join(os.path.realpath(p), "") for p in found if p)


def _package_roots() -> tuple[str, ...]:
    """The folders of :data:`LIBRARY_PACKAGES` already imported in this process (each with a trailing separator)."""
    roots = []
    for name in LIBRARY_PACKAGES:
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if where:
            roots.append(os.path.join(os.path.realpath(os.path.dirname(where)), ""))
    return tuple(roots)


def library_roots() -> tuple[str, ...]:
    """The folders whose files are a library's: the interpreter's (:func:`_standard_roots`, read once) and those of
    :data:`LIBRARY_PACKAGES` imported so far (read now: a package imported later adds its own)."""
    return _standard_roots() + _package_roots()


def library_file(filename: str, roots: tuple[str, ...] | None = None) -> bool:
    """Whether ``filename`` (as a code object names it) is an installed library's, by the module docstring's rule:
    the import system's frozen modules, a file under a ``site-packages`` / ``dist-packages`` folder, or one under
    ``roots`` (default :func:`library_roots`). The one judgement of "a library's code" for the reference's traced
    lines and for whose call failed (:mod:`kernelopt.harness.own_fault`)."""
    if filename.startswith("<frozen"):
        return True
    if filename.startswith("<"):
        return False  # code built at run time (``<string>``): its maker's
    real = os.path.realpath(filename)
    if LIBRARY_FOLDER_NAMES.intersection(Path(real).parts):
        return True
    return real.startswith(library_roots() if roots is None else roots)


class OwnCode:
    """The files of a reference's own code (module docstring): ``filename in own`` answers for one file, cached.

    Attributes:
        reference: reference.py's path as its code objects name it (always its own code), or ``None``: nothing
            is traced.
    """

    def __init__(self, reference: str | None) -> None:
        self.reference = reference
        self.folder = os.path.dirname(os.path.realpath(reference)) if reference else None
        self._known: dict[str, bool] = {}
        self._roots: tuple[str, ...] | None = None

    def __contains__(self, filename: object) -> bool:
        if not isinstance(filename, str):
            return False
        known = self._known.get(filename)
        if known is None:
            known = self._known[filename] = self._judge(filename)
        return known

    def _judge(self, filename: str) -> bool:
        if self.reference is None:
            return False
        if filename == self.reference:
            return True
        if filename.startswith("<") or not filename.endswith(".py"):  # <frozen ...>, <string>, a compiled module
            return False
        if self._roots is None:
            self._roots = library_roots()
        return not library_file(filename, self._roots)

    def name(self, filename: str) -> str:
        """``filename`` as the log shows it: relative to reference.py's folder when under it, else as it is."""
        if self.folder is not None:
            real = os.path.realpath(filename)
            if real.startswith(os.path.join(self.folder, "")):
                return os.path.relpath(real, self.folder)
        return filename


class LineTrace:
    """Records the lines of the reference's own code (``own``) that run while the ``with`` block runs (this
    thread).

    The tracer in place before (a debugger, coverage) is put back on exit.

    Attributes:
        own: which files are traced (``None``, or an :class:`OwnCode` of no reference: nothing is).
        lines: the ``(file, line number)`` pairs executed so far.
    """

    def __init__(self, own: OwnCode | None) -> None:
        self.own = own if own is not None and own.reference is not None else None
        self.lines: set[Line] = set()
        self._previous: Any = None

    def __enter__(self) -> LineTrace:
        self._previous = sys.gettrace()
        if self.own is not None:
            sys.settrace(self._call)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.own is not None:
            sys.settrace(self._previous)

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        assert self.own is not None
        if frame.f_code.co_filename not in self.own:
            return None  # a library's frame: no line events in it
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines.add((frame.f_code.co_filename, frame.f_lineno))
        return self._line


def other_lines(a: set[Line], b: set[Line]) -> list[Line]:
    """The lines only one of two runs executed, sorted by file and line (empty: one path)."""
    return sorted(a ^ b)


def shown_lines(lines: Iterable[Line], own: OwnCode, limit: int = 6) -> str:
    """``reference.py line(s) 11, 12; norms.py line(s) 4`` (at most ``limit`` numbers, then how many more)."""
    by_file: dict[str, list[int]] = {}
    listed = sorted(lines)
    for filename, number in listed[:limit]:
        by_file.setdefault(own.name(filename), []).append(number)
    text = "; ".join(f"{name} line(s) {', '.join(map(str, numbers))}" for name, numbers in by_file.items())
    return text + (f" and {len(listed) - limit} more" if len(listed) > limit else "")
