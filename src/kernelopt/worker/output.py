"""What a worker prints, kept to a bound: :class:`OutputCap`, the one cap of every captured output file.

A kernel may print without end (2 MB a call left 244 MB of logs after a 4.5 s tuning session, issue 35). Both
kinds of worker write their output to files, never to a pipe: a harness worker's stdout and stderr
(:mod:`kernelopt.harness.runner`), and a long-lived service worker's log
(:class:`kernelopt.worker.client.WorkerProcess`: the tuning engine's bench and compile workers). The parent
watching each one trims the file as it grows, keeping its head and its tail (the newest output, where a
crash's last words are), and says in one line how many bytes were dropped between them.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

OUTPUT_HEAD_BYTES = 256 * 1024
"""Bytes kept from the start of a captured output file."""
OUTPUT_TAIL_BYTES = 256 * 1024
"""Bytes kept from its end."""


_FALLOC_FL_COLLAPSE_RANGE = 0x08
"""linux/falloc.h: remove a block-aligned range from a file, the bytes after it move down (ext4, xfs)."""


@functools.cache
def _fallocate() -> Callable[[int, int, int, int], int] | None:
    """libc's ``fallocate(fd, mode, offset, len)``, or ``None`` where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    fn = getattr(ctypes.CDLL(None, use_errno=True), "fallocate", None)
    if fn is None:
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fn.restype = ctypes.c_int
    return fn


def _collapse(fd: int, offset: int, length: int) -> bool:
    """Remove ``length`` bytes at ``offset`` (both multiples of the block size) from the open file in place;
    False where the file system or platform cannot (tmpfs, for one). The kernel does it under the file's
    lock, so a child appending meanwhile loses nothing: its next write lands at the new end."""
    fallocate = _fallocate()
    return fallocate is not None and fallocate(fd, _FALLOC_FL_COLLAPSE_RANGE, offset, length) == 0


class OutputCap:
    """Keeps one captured output file (a worker's stdout or stderr) to its head and tail while it grows.

    The file is written by the child in append mode (see :func:`kernelopt.proc.start_command`). Whenever
    it holds more than ``head + 2 * tail`` bytes, :meth:`trim` cuts out the middle; :meth:`finish` writes
    the head, one line that says how many bytes were dropped, and the tail (the newest output, what the
    tail is for). A kernel that prints 100 KB per call therefore costs at most about ``head + 2 * tail``
    bytes of disk (plus two file system blocks), however long it runs.

    The cut is made in place where the file system can remove a range from a file (Linux
    ``FALLOC_FL_COLLAPSE_RANGE``: ext4, xfs), which loses nothing the child writes meanwhile, and the
    count is exact. Elsewhere (tmpfs) the newest ``tail`` bytes are read up to the end of the file, kept
    in memory, and the file is cut back to its head at once: output the child writes in the instant
    between that read and the cut is lost uncounted, so the note says "at least".

    Attributes:
        dropped_bytes: bytes cut from the middle so far (a lower bound).
        in_place: every cut so far was made in place (nothing lost, the count exact); False once the file
            system refused one.
    """

    def __init__(self, path: Path, *, head_bytes: int = OUTPUT_HEAD_BYTES, tail_bytes: int = OUTPUT_TAIL_BYTES) -> None:
        self.path = path
        self.head_bytes = head_bytes
        self.tail_bytes = tail_bytes
        self.dropped_bytes = 0
        self._tail = b""
        self.in_place = True

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def trim(self) -> None:
        """Cut the middle out of the file when it has grown past ``head + 2 * tail`` bytes."""
        size = self._size()
        if size <= self.head_bytes + 2 * self.tail_bytes:
            return
        with self.path.open("r+b") as fh:
            if self.in_place:
                block = os.fstat(fh.fileno()).st_blksize
                start = -(-self.head_bytes // block) * block  # the head, rounded up to whole blocks
                end = (size - self.tail_bytes) // block * block  # at least the tail stays after the cut
                if end - start < block:
                    return  # less than a block to cut yet
                if _collapse(fh.fileno(), start, end - start):
                    self.dropped_bytes += end - start
                    return
                self.in_place = False
            fh.seek(size - self.tail_bytes)
            chunk = fh.read()  # to the end: output written since the size was taken is read too
            fh.truncate(self.head_bytes)
        kept = chunk[-self.tail_bytes :]
        self.dropped_bytes += (size - self.tail_bytes + len(chunk) - self.head_bytes - len(kept)) + len(self._tail)
        self._tail = kept

    def finish(self) -> int:
        """Write head + drop note + tail once the writer has exited; returns the bytes dropped in all."""
        size = self._size()
        if not self.dropped_bytes and size <= self.head_bytes + self.tail_bytes:
            return 0
        with self.path.open("rb") as fh:
            head = fh.read(self.head_bytes)
            rest = fh.read()
        tail = self._tail + rest
        if len(tail) > self.tail_bytes:
            self.dropped_bytes += len(tail) - self.tail_bytes
            tail = tail[-self.tail_bytes :]
        note = (
            f"\n[kernelopt: at least {self.dropped_bytes} bytes of output dropped here; "
            f"the first {len(head)} and the last {len(tail)} bytes are kept]\n"
        ).encode()
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_bytes(head + note + tail)
        tmp.replace(self.path)
        self._tail = b""
        return self.dropped_bytes
