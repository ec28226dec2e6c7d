"""Foundation: writing files so that a reader never sees half of one.

Every persisted file of kernelopt (iteration records, summaries, plans, journals, reports, the
kernel edits of Stage 3) is written through :func:`atomic_write_text`: a temporary file in the same
folder, fsync, then ``os.replace``. A failed or interrupted write leaves the previous file intact.
An append-only record (a tuning session's JSONL) grows by :func:`append_line`: one whole line per write.
Every text is redacted on the way (:func:`kernelopt.redact.redact`): no kept file holds a secret. Code is
the exception: a kernel, a candidate or a reference is written as given (:func:`atomic_write_code`), since a
redacted program is another program.
A rewritten file keeps its mode; a new one gets the mode ``open()`` would give it (``0666 & ~umask``),
never ``mkstemp``'s private 0600 (:func:`new_file_mode`; :func:`new_folder_mode` for a staged folder).
:func:`redact_file` and :func:`redact_tree` clean files a child process wrote. This module imports
nothing of kernelopt but the redactor, so every layer may use it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kernelopt.redact import redact


def umask() -> int:
    """The process's umask, read without changing it where Linux tells it (``/proc/self/status``)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and put back (the only portable way to read it)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0666 & ~umask`` (0644 under umask 022)."""
    return 0o666 & ~umask()


def new_folder_mode() -> int:
    """The mode ``mkdir`` gives a new folder: ``0777 & ~umask`` (0755 under umask 022); for a folder built
    in a ``mkdtemp`` staging folder (0700) and moved into place."""
    return 0o777 & ~umask()


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text``, redacted (:func:`kernelopt.redact.redact`), to ``path`` atomically (temp file in
    the same folder, fsync, rename).

    Creates the parent folders. An existing file keeps its mode (a ``kernel.py`` of 0644 stays 0644); a
    new one gets :func:`new_file_mode`. On any error the temporary file is removed and ``path`` keeps its
    previous content (or stays absent).
    """
    with naming(path):
        _write_text(path, redact(text))


def atomic_write_code(path: Path, text: str) -> None:
    """Write source code to ``path`` as :func:`atomic_write_text` does, but exactly as given: never redacted.

    Redacting code changes the program: with ``BUILD_KEY=empty_like`` in the environment, ``torch.empty_like``
    became ``torch.[redacted]`` in every candidate of a tuning session (issue 35). A kernel, a candidate and a
    reference are code; a secret that code holds is the guard's to refuse (:mod:`kernelopt.stages.guard`),
    not the writer's to hide.
    """
    with naming(path):
        _write_text(path, text)


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """An ``OSError`` without a file name (a write or fsync refused for want of space: ENOSPC names no path)
    leaves with ``path`` as its file name, so its one-line error says which file the disk refused."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), mode)  # mkstemp's file is 0600 whatever the umask
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_line(path: Path, line: str) -> None:
    """Append ``line`` and a newline to ``path`` in one write, then fsync (a JSONL record's one entry).

    A line is written whole or, if the process dies mid-write, left as a last line without its newline,
    which readers of such records ignore. ``path`` must exist (its header is written with
    :func:`atomic_write_text`); ``line`` must hold no newline.

    Raises:
        ValueError: ``line`` holds a newline.
    """
    if "\n" in line:
        raise ValueError("a record line holds no newline")
    with naming(path), path.open("a", encoding="utf-8") as fh:
        fh.write(redact(line) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def redact_file(path: Path) -> bool:
    """Redact a text file in place (one a child process wrote); True when it changed.

    A missing file, a folder or a file that is not UTF-8 text is left alone; the rewrite is atomic.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if redact(text) == text:
        return False
    atomic_write_text(path, text)
    return True


def redact_tree(folder: Path) -> list[Path]:
    """Redact every text file under ``folder`` in place; the files that changed."""
    if not folder.is_dir():
        return []
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and redact_file(p)]
