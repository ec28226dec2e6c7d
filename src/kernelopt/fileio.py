"""Foundation: writing files so that a reader never sees half of one.

Every persisted file of kernelopt (iteration records, summaries, plans, journals, reports, the
kernel edits of Stage 3) is written through :func:`atomic_write_text`: a temporary file in the same
folder, fsync, then ``os.replace``. A failed or interrupted write leaves the previous file intact.
An append-only record (a tuning session's JSONL) grows by :func:`append_line`: one whole line per write.
This module imports nothing of kernelopt, so every layer may use it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file in the same folder, fsync, rename).

    Creates the parent folders. On any error the temporary file is removed and ``path`` keeps its
    previous content (or stays absent).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
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
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())
