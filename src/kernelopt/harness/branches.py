"""Which lines of reference.py a run of the reference executes (worker side).

The check runs the reference in its own dtype (the kernel's peer) and in float64 (the values' truth), and reads
the difference between the two as the reference's own rounding error, which widens the tolerance
(:mod:`kernelopt.harness.compare`). A reference that branches on its dtype (``if x.dtype == torch.float16:``)
computes something else in float64: the difference is then the branch, not rounding, and widening by it would
let a kernel that leaves the branch's work out pass. :mod:`kernelopt.harness.draws` tells a float64 run that
drew other random numbers; this module tells one that took another path through reference.py: the lines each
run executed in that file (:class:`LineTrace`) differ. Then the kernel is checked against the own-dtype run
with the dtype's default tolerance, never widened. Lines elsewhere (torch, helpers the file imports) are not
traced: a branch inside them is not seen.

The cost: a ``sys.settrace`` hook that returns at once for every frame not of reference.py, and records the
line numbers of that file's frames (microseconds per call of the reference).
"""

from __future__ import annotations

import sys
from types import FrameType, TracebackType
from typing import Any


class LineTrace:
    """Records the line numbers of ``filename`` that run while the ``with`` block runs (this thread).

    The tracer in place before (a debugger, coverage) is put back on exit.

    Attributes:
        filename: the traced file, as its code objects name it (a module's ``__file__``).
        lines: the line numbers executed so far.
    """

    def __init__(self, filename: str | None) -> None:
        self.filename = filename
        self.lines: set[int] = set()
        self._previous: Any = None

    def __enter__(self) -> LineTrace:
        self._previous = sys.gettrace()
        if self.filename is not None:
            sys.settrace(self._call)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.filename is not None:
            sys.settrace(self._previous)

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.filename:
            return None  # not reference.py: no line events in this frame
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._line


def other_lines(a: set[int], b: set[int]) -> list[int]:
    """The line numbers only one of two runs executed, sorted (empty: one path)."""
    return sorted(a ^ b)
