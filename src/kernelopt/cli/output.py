"""Rendering for the CLI: JSON for machines, rich tables for people. The only place that prints."""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from pydantic import BaseModel
from rich import box
from rich.console import Console
from rich.table import Table

from kernelopt.digits import sig
from kernelopt.env import raw_value
from kernelopt.errors import EnvironmentProblem

DEFAULT_WIDTH = 100


def width_of(stream: Any, environ: Any = None) -> int | None:
    """Columns to render for ``stream``: the terminal's own width (None: Rich asks the terminal), else
    ``COLUMNS`` when it is a positive number, else 100 (pipes, logs, CI)."""
    columns = (raw_value("columns", environ) or "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if stream.isatty() else DEFAULT_WIDTH


class _Console(Console):
    """Rich's console, but a reader that went away is an ``OSError`` as for any other print (:func:`printing`
    says it): rich's own answer ends the process with status 1 and not a word (after kernel.py was written)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def _console(stderr: bool = False) -> Console:
    """A console bound to the current stdout/stderr, as wide as the terminal (see :func:`width_of`)."""
    stream = sys.stderr if stderr else sys.stdout
    return _Console(file=stream, highlight=False, width=width_of(stream))


class StdoutLost(EnvironmentProblem):
    """stdout refused what was printed: its reader went away (EPIPE: ``| head``, ``| true``), or its file cannot
    take it (ENOSPC: a full disk, ``> /dev/full``). Exit 3; a command that wrote a user's file first says so
    (``tune``: exit 0, kernel.py holds the written best)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(
            f"could not print to stdout: {exc.strerror or exc} (errno {exc.errno})",
            hint="give stdout somewhere that takes it (a file on a disk with space, or a reader that reads it all)",
        )
        self.reason = f"{exc.strerror or exc} (errno {exc.errno})"


@contextmanager
def printing() -> Iterator[None]:
    """Print inside the block, flushed at its end; an ``OSError`` of the printing leaves as :class:`StdoutLost`.

    stdout is then pointed at /dev/null, so the process's own flush at exit finds nothing to fail on (Python says
    "Exception ignored ... BrokenPipeError" there and ends with status 120, whatever the command returned).
    Only printing belongs in the block: another ``OSError`` in it would be taken for stdout's.
    """
    try:
        yield
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        _drop_stdout()
        raise StdoutLost(exc) from None


def _drop_stdout() -> None:
    """Point file descriptor 1 (what ``sys.stdout`` writes to) at /dev/null; a stdout with no descriptor of its
    own (a test's capture) is left as it is."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def plain_flags(command: Any) -> None:
    """Show boolean flags as flags in ``--help`` (``--json``, not ``--json <bool>``), in every sub-command.

    Typer 0.29's rich help prints the type of every option, flags included; an empty metavar drops it.
    """
    for p in command.get_params(command.context_class(command)):
        if getattr(p, "is_flag", False) and p.metavar is None:
            p.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        plain_flags(sub)


def _plain(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, list | tuple):
        return [_plain(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


class _Said:
    """What this command has said so far: whether it printed its ``--json`` object, and the line that ended it early
    (a refusal, an interrupt) as stderr has it, less ``kernelopt: ``."""

    printed = False
    stop: str | None = None


def emit_json(obj: Any) -> None:
    """Print ``obj`` (model, list, dict) as indented JSON on stdout."""
    sys.stdout.write(json.dumps(_plain(obj), indent=2, default=str) + "\n")
    _Said.printed = True


def say_stop(line: str) -> None:
    """Say the one line that ends a command early (``kernelopt: LINE`` on stderr); ``--json`` carries it in its
    error object (:func:`emit_json_error`)."""
    _Said.stop = line
    sys.stderr.write(f"kernelopt: {line}\n")


def forget_said() -> None:
    """A new command starts (the CLI's ``main`` may run many in one process: the tests)."""
    _Said.printed, _Said.stop = False, None


def emit_json_error(code: int) -> None:
    """The one JSON object of a ``--json`` command that printed none: refused (any exit but 0) or interrupted
    (exit 130, or 0 where ``tune`` had written kernel.py), ``{"error": {"code": EXIT, "message": LINE}}``, LINE
    the stderr line less ``kernelopt: error: `` (``interrupted; ...`` as said). Nothing where stdout is gone."""
    if _Said.printed or (code == 0 and _Said.stop is None):
        return
    message = (_Said.stop or f"exit {code}; stderr says why").removeprefix("error: ")
    with suppress(OSError, ValueError, AttributeError):  # stdout closed, or its reader gone
        emit_json({"error": {"code": code, "message": message}})
        sys.stdout.flush()


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell: ``n/a`` for None, 4 significant digits for floats, written out up to 7 digits (a latency of
    15,330 us is ``15330``, not ``1.533e+04``)."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return sig(value, digits)
    return str(value)


class _Layout:
    """How a table is drawn: rich's box and padding, and the characters they add to the cells' widths."""

    def __init__(self, name: str, options: dict[str, Any], per_column: int, edges: int) -> None:
        self.name = name
        self.options = options
        self.per_column = per_column
        self.edges = edges

    def overhead(self, columns: int) -> int:
        """Characters the borders and padding of ``columns`` columns take."""
        return self.per_column * columns + self.edges


_HEAVY = _Layout("heavy", {}, per_column=3, edges=1)  # rich's default: ┃ cell ┃ with a space either side
_OPEN = _Layout(  # a rule under the header only, two spaces between columns
    "open", {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False, "collapse_padding": True}, 2, -2
)
_TIGHT = _Layout(  # the same with one space between columns
    "tight", {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False, "padding": (0, 0)}, 1, -1
)
LAYOUTS = (_HEAVY, _OPEN, _TIGHT)
"""From the most framed to the most compact: a table too wide for the console takes the first that keeps its
words whole, else the first that keeps its header's words whole, else the tightest, with words folded."""


def table(
    title: str | None,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    wide: str | None = None,
    name_width: int | None = None,
) -> None:
    """Print a rich table; the column named ``wide`` (a text column) takes the width the others leave; with
    ``name_width`` the first column folds past that many characters (long names, such as KernelBench's).

    A table wider than the console gets its columns' widths from :func:`fitted_widths`: Rich's own narrowing cut
    a column below its min_width off at the right edge (tune's per-shape table lost "current's latency") and
    folded words whole columns had room for ("kernel.py:28" as "kernel.py:2" over "8" in `tunables`). Before a
    word is folded, the table drops its frame (:data:`LAYOUTS`): ``memory summary`` at 100 columns folded its
    header words ("latenc" over "y (us)") that a lighter frame has room for."""
    console = _console()
    cells = [[fmt(v) for v in r] for r in rows]
    t = _table(title, columns, cells, wide=wide, name_width=name_width)
    if console.measure(t, options=console.options.update_width(10**4)).maximum > console.width:
        layout = _fitting_layout(columns, cells, console.width, name_width=name_width)
        widths = fitted_widths(columns, cells, console.width, name_width=name_width, layout=layout)
        t = _table(title, columns, cells, wide=wide, name_width=name_width, widths=widths, layout=layout)
    console.print(t)


def _words(columns: Sequence[str], cells: Sequence[Sequence[str]], *, header_only: bool) -> list[int]:
    """Each column's longest word: of its header and cells, or of its header alone."""
    texts = [[str(c), *([] if header_only else [row[i] for row in cells])] for i, c in enumerate(columns)]
    return [max((len(w) for t in col for w in t.split()), default=1) for col in texts]


def _fitting_layout(
    columns: Sequence[str], cells: Sequence[Sequence[str]], width: int, *, name_width: int | None = None
) -> _Layout:
    """The first of :data:`LAYOUTS` whose frame leaves room for every word whole, else for every header word
    whole, else the tightest (words fold, as few as can be)."""
    for header_only in (False, True):
        floor = _words(columns, cells, header_only=header_only)
        if name_width is not None:
            floor[0] = min(floor[0], name_width)
        for layout in LAYOUTS:
            if sum(floor) + layout.overhead(len(columns)) <= width:
                return layout
    return _TIGHT


def fitted_widths(
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    width: int,
    *,
    name_width: int | None = None,
    layout: _Layout = _HEAVY,
) -> list[int]:
    """Text widths of the columns of a table drawn in ``width`` characters (``layout``'s frame takes its
    overhead): each starts at its longest cell; while the table is too wide, the column with the most room above
    its longest word gives one character, so words fold only when no column has such room left; then the column
    with the most room above its header's longest word gives, so cells fold before a header word does; then the
    widest other than the first. The first column, which names the row, stays whole (up to ``name_width``)."""
    texts = [[str(c), *(row[i] for row in cells)] for i, c in enumerate(columns)]
    longest = [max(len(line) for t in col for line in t.splitlines() or [""]) for col in texts]
    widths = list(longest)
    if name_width is not None:
        widths[0] = min(widths[0], name_width)
    room = width - layout.overhead(len(columns))
    for floor in (_words(columns, cells, header_only=False), _words(columns, cells, header_only=True)):
        while sum(widths) > room:
            slack = [(widths[i] - floor[i], i) for i in range(1, len(widths)) if widths[i] > floor[i]]
            if not slack:
                break
            widths[max(slack)[1]] -= 1
    while sum(widths) > room:
        widest = max(range(1, len(widths)), key=lambda i: widths[i], default=None)
        if widest is None or widths[widest] <= 4:
            break  # nothing left to give: Rich narrows the rest
        widths[widest] -= 1
    return widths


def _table(
    title: str | None,
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    *,
    wide: str | None,
    name_width: int | None,
    widths: Sequence[int] | None = None,
    layout: _Layout = _HEAVY,
) -> Table:
    t = Table(title=title, show_lines=False, **layout.options)
    for i, c in enumerate(columns):
        if widths is not None:
            t.add_column(c, overflow="fold", width=widths[i])
        # the first column names the row (a version, a knob, a case): kept whole; the others wrap and fold
        elif c == wide:
            t.add_column(c, overflow="fold", ratio=1, min_width=24)
        elif i == 0 and name_width is not None:
            t.add_column(c, overflow="fold", max_width=name_width)
        else:
            t.add_column(c, overflow="fold", no_wrap=i == 0)
    for r in cells:
        t.add_row(*r)
    return t


def info(text: str) -> None:
    _console().print(text, markup=False, soft_wrap=True)


def warn(text: str) -> None:
    _console(stderr=True).print(f"warning: {text}", markup=False, soft_wrap=True)


def note(text: str) -> None:
    """A line for people on stderr (stdout may carry ``--json``)."""
    _console(stderr=True).print(text, markup=False, soft_wrap=True)
