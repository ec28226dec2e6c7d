"""Foundation: swapping two names in one step, and seeing a writer coming, for a write into a user's file.

A rename replaces whatever the name holds at that instant, so a check made before it ("the file still holds
what was read") leaves a window: an editor's save landing between the check and the rename is lost. Linux
closes it with two calls, both here:

- :func:`swap` exchanges two names atomically (``renameat2(RENAME_EXCHANGE)``): the new file takes the name and
  the file that held it comes back under the other name, so what was replaced can be looked at, and swapped
  back, after the fact. Nothing is ever replaced unseen.
- :class:`ReadLease` takes a read lease (``fcntl(F_SETLEASE, F_RDLCK)``) on an open file: while it is held,
  another process's ``open()`` of that file for writing (or its truncation) waits in the kernel, and the
  lease says so (:meth:`ReadLease.broken`). An editor that writes in place, its path looked up before the swap,
  cannot write unseen: its open waits until the lease goes, and by then the file it opened is back in place.
  The lease's owner is cleared, so its break sends no signal (SIGIO would end the process).

Where either is missing (another system; a file system that refuses the exchange, ``EINVAL``; a lease refused:
another owner, a writer holding the file open, leases disabled), :func:`swap` returns False and
:class:`ReadLease` holds nothing: the caller falls back on the check and a plain rename, and says which it used
nowhere (the guarantee it gives is in docs/tuning-engine.md). This module imports nothing of kernelopt.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import sys
from pathlib import Path

#: ``renameat2`` flag: exchange the two names (linux/fs.h).
RENAME_EXCHANGE = 2
#: ``AT_FDCWD``: a path relative to the working folder (absolute paths ignore it).
AT_FDCWD = -100
#: The errors that mean "this system or file system cannot exchange two names", not "these names are wrong".
UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM})
#: ``renameat2``'s number where glibc lacks the wrapper (before 2.28), by machine.
_SYSCALL = {"x86_64": 316, "aarch64": 276}

_renameat2: object = None  # the C function once looked up; False where there is none


def _function() -> object:
    global _renameat2
    if _renameat2 is None:
        _renameat2 = False
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            if hasattr(libc, "renameat2"):
                _renameat2 = libc.renameat2
            elif os.uname().machine in _SYSCALL:
                number = _SYSCALL[os.uname().machine]
                _renameat2 = lambda *args: libc.syscall(number, *args)  # noqa: E731
    return _renameat2


def swap(a: Path | str, b: Path | str) -> bool:
    """Exchange the names ``a`` and ``b`` in one step: each then names the file the other named.

    Returns:
        True once swapped; False where this system or the file system cannot (nothing changed).

    Raises:
        OSError: either name is missing (``ENOENT``), or another error of the call, with ``b`` as its file.
    """
    call = _function()
    if call is False:
        return False
    done = call(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)  # type: ignore[operator]
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(b))


class ReadLease:
    """A read lease on the open file ``fd`` (opened read-only): while :attr:`held`, an ``open()`` of the file
    for writing by another process waits, and :meth:`broken` turns True. Let go by :meth:`release` (or by
    closing ``fd``)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except (OSError, AttributeError):  # a writer has it open, another owner, no leases here: none held
            self.held = False
            return
        self.held = True
        fcntl.fcntl(fd, fcntl.F_SETOWN, 0)  # no owner: a break sends no SIGIO (its default ends the process)

    def broken(self) -> bool:
        """True when a writer's ``open()`` waits for the lease (False when none is held: nothing is known)."""
        return self.held and fcntl.fcntl(self.fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK

    def release(self) -> None:
        if self.held:
            self.held = False
            fcntl.fcntl(self.fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
