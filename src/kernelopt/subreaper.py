"""Run one command as the child subreaper of everything it starts, and kill what it leaves behind.

``python -I -S subreaper.py PROGRAM ARG...`` (what :func:`kernelopt.proc.run_command` runs for a command asked to
``kill_leftovers``, an agent's): this process marks itself a *child subreaper* (Linux ``prctl``), starts the command
and waits for it. A process the command starts that outlives its parent, a daemon that forked twice and left its
session (``setsid``), is handed to this process, not to init, whatever it did to its environment, group or session.
When the command has ended, every such process is killed and reaped, then this process exits as the command did
(its status, or the signal that ended it). Past the command's limit, :func:`kernelopt.proc.run_command` sends this
process ``SIGUSR1`` (:data:`REAP_NOW`) before the group's ``SIGKILL``: it kills the command and every process handed to
it, then reaps, since a ``SIGKILL`` that reached this process first would hand the leftovers to init.

The token in the environment (:func:`kernelopt.proc.kill_strays`) found a daemon only while it kept that
environment: one started with ``env -i`` (``os.execve(..., {})``) escaped and wrote kernel.py a second after the
stage's guard had checked it (agents19, a7).

Standard library only, and run without ``site``: it starts in a few milliseconds before each agent.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36
REAP_NOW = signal.SIGUSR1
"""The signal that has this process kill the command and all it left at once (``kernelopt.proc.REAP_NOW``)."""


def _children() -> list[int]:
    """The processes whose parent is this one."""
    me = os.getpid()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # the name in parentheses may hold spaces
        if len(fields) > 1 and int(fields[1]) == me:
            out.append(int(name))
    return out


def _kill_children() -> int:
    """SIGKILL every child of this process; how many were sent it."""
    killed = 0
    for pid in _children():
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            pass
    return killed


def reap_all() -> int:
    """SIGKILL every child until none is left, reaping each; how many were killed."""
    killed = 0
    while True:
        killed += _kill_children()
        try:
            os.waitpid(-1, 0)  # a killed child's children come to this process in turn
        except ChildProcessError:
            return killed


def main(argv: list[str]) -> int:
    if not argv:
        print("subreaper: no command given", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"subreaper: prctl failed: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 126
    # the command's process group gets SIGTERM past its limit: the command handles it; this process waits for it
    signal.signal(signal.SIGTERM, lambda *_: None)
    signal.signal(signal.SIGINT, lambda *_: None)
    signal.signal(REAP_NOW, lambda *_: _kill_children())  # the wait below then returns, and reap_all ends the rest
    try:
        proc = subprocess.Popen(argv)
    except FileNotFoundError as exc:
        print(f"subreaper: {exc}", file=sys.stderr)
        return 127
    except PermissionError as exc:
        print(f"subreaper: {exc}", file=sys.stderr)
        return 126
    code = proc.wait()
    reap_all()
    if code < 0:  # ended by a signal: end by it too, so that the caller sees the same status
        if -code not in (signal.SIGKILL, signal.SIGSTOP):  # those two take no handler
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
