"""Which ``kernelopt mcp`` server serves a workspace between its calls (leftovers22, l19).

The server's stage calls pause the run between two stages (``RunState.paused``) and let go of the run lock, so the
journal says running while the agent works, and said so after the server was killed too: nothing told a server that
is gone from one that waits for its client. A server that makes a stage call on a workspace keeps a shared ``flock``
on ``.kernelopt/served.lock`` there for as long as it lives (the kernel lets go of it when the process dies,
``kill -9`` included); a probe reads the kernel's table of locks (``/proc/locks``), never taking the lock itself.
Each stage call writes its server's pid into the file, so the probe tells the server that made the last call (the
one that paused the run) from another that served the workspace too and lives on (late28, z63: a second live
server kept the status "running" after the first one died, naming neither).
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

MARK = "served.lock"
"""The file a serving process holds, in the workspace's state folder."""

_marks: dict[Path, int] = {}  # this process's marks: the file -> its descriptor


def mark_served(state_dir: Path) -> None:
    """This process serves the workspace whose state folder is ``state_dir``, to its end. Marks of workspaces that
    are gone are let go of first (a process serving many workspaces keeps no descriptor of a deleted one)."""
    path = Path(state_dir) / MARK
    for old in [p for p in _marks if not p.parent.is_dir()]:
        os.close(_marks.pop(old))
    if path in _marks:
        _last_call(_marks[path])
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return  # no mark: the status of a paused run then says what it said before
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return
    _marks[path] = fd
    _last_call(fd)


def _last_call(fd: int) -> None:
    """This process made the workspace's last stage call: its pid is the file's text (a failed write leaves the
    last one: nothing is said of it then)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass


@dataclass(frozen=True)
class Served:
    """What the mark of a workspace says: whether a server ever marked it, and the pids that hold it now."""

    marked: bool
    holders: tuple[int, ...] = ()
    last: int | None = None

    @property
    def others(self) -> tuple[int, ...]:
        """The live servers of the workspace where the one that made its last call has ended (``()`` where it lives,
        or the mark does not say which made it)."""
        return self.holders if self.last is not None and self.last not in self.holders else ()

    def calling(self, pid: int) -> Served:
        """The mark as process ``pid`` makes it when its stage call in flight returns (:func:`mark_served`): a
        status read inside that call (the call's own result) names ``pid`` as the server that serves the workspace
        and made its last call, never the server before it, which may have ended (fresh28 f60)."""
        return Served(True, tuple(sorted({*self.holders, pid})), pid)

    @property
    def gone(self) -> bool:
        """A server marked it and none holds it now: the one that paused the run has ended."""
        return self.marked and not self.holders


def served(state_dir: Path) -> Served:
    """Whether a live process serves the workspace of ``state_dir`` (this one included), read without taking the
    lock; ``Served(False)`` where no server marked it or the table of locks cannot be read (nothing is said)."""
    path = Path(state_dir) / MARK
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    last = int(text) if text.isdigit() else None
    try:
        st = os.stat(path)
        locks = Path("/proc/locks").read_text()
    except OSError:
        return Served(True, (os.getpid(),), last) if path in _marks else Served(False)
    node = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    holders: list[int] = []
    for line in locks.splitlines():
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK" or fields[5] != node:
            continue  # a waiter's line, another kind of lock, another file
        if fields[4].isdigit() and Path(f"/proc/{fields[4]}").is_dir():  # the taker alive, not a child it forked
            holders.append(int(fields[4]))
    return Served(True, tuple(sorted(set(holders))), last)
