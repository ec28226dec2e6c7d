"""Whether an exception caught at the boundary around the problem's code was kernelopt's own (pure).

Issue 3's rule: a reference's error is never the kernel's, and kernelopt's own error is neither the kernel's nor the
reference's. The worker runs reference.py's code (``get_inputs``, ``Model``, its forward) inside a boundary that
blames the problem for whatever is raised there; but the harness's own work runs inside the same boundary (comparing two
seeds' inputs, moving them to the device), and q82's row read "the problem's reference failed" where the harness's
``same_values`` had called ``torch.nan_to_num`` on an fp8 tensor, which torch lacks (late46 l161).

The raising frame tells them apart: walking the traceback from where it was raised outwards, past the frames of
libraries (torch, numpy, triton, the standard library, a site folder: called by whoever called them; the one judgement
of :func:`kernelopt.harness.branches.library_file`), the first frame of other code is the one whose call failed.
When that frame is in kernelopt's package, and its line is a call rather than kernelopt's own ``raise`` (a verdict
kernelopt gives on purpose, such as a ``SHAPES`` that names no case), the error is kernelopt's. A tensor of the user's
that the harness cannot read is refused where the inputs are built to be checked and timed
(``harness.inputs.make_inputs``), in one line that names it: the harness never calls torch on it, so the user's value
is never read as kernelopt's bug (leftovers28 l180)."""

from __future__ import annotations

import linecache
from pathlib import Path
from types import TracebackType

from kernelopt.harness.branches import library_file, library_roots

_PACKAGE = Path(__file__).resolve().parent.parent  # src/kernelopt


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _frames(tb: TracebackType | None) -> list[tuple[Path, int, str]]:
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        name = getattr(code, "co_qualname", code.co_name).split(".<locals>")[0]  # a comprehension: its function
        out.append((Path(code.co_filename), tb.tb_lineno, name))
        tb = tb.tb_next
    return out


def own_frame(exc: BaseException) -> str | None:
    """``kernelopt/harness/inputs.py:140 in same_values()`` where ``exc`` was raised by a call in kernelopt's own
    code (the module docstring's rule), else ``None`` (the problem's code, or kernelopt's deliberate verdict: an
    exception of kernelopt's own classes, or its own ``raise`` statement)."""
    if type(exc).__module__.split(".")[0] == _PACKAGE.name:
        return None
    libraries = library_roots()
    for raw, line, name in reversed(_frames(exc.__traceback__)):
        path = raw.resolve() if raw.is_absolute() else raw
        if _inside(path, _PACKAGE):
            if linecache.getline(str(raw), line).lstrip().startswith("raise"):
                return None
            return f"{_PACKAGE.name}/{path.relative_to(_PACKAGE).as_posix()}:{line} in {name}()"
        if library_file(str(raw), libraries):
            continue  # a library's frame (the import system's among them): called by whoever called it
        return None  # the user's code (reference.py, a module of theirs), or code built at run time (`<string>`)
    return None


HARNESS_FAILED = "kernelopt's harness failed"
"""How the one line of kernelopt's own error begins after its place (:func:`harness_failed`)."""


def harness_failed(where: str, what: str, error: str, frame: str) -> str:
    """``case 0 (n=8): kernelopt's harness failed in its own code around reference.py get_inputs: NotImplementedError:
    ... at kernelopt/harness/inputs.py:389 in same_values() (a bug in kernelopt; please report)``."""
    return (
        f"{where}: {HARNESS_FAILED} in its own code around {what}: {error} at {frame} "
        "(a bug in kernelopt; please report)"
    )
