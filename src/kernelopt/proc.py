"""The one gateway for external commands.

Every subprocess kernelopt starts goes through :func:`run_command`: an argv list (never a shell string),
a mandatory timeout, the child in its own process group (``start_new_session``) so that on timeout the
whole group is killed, and the output captured so far is kept.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CommandResult:
    """What a finished (or killed) command left behind.

    Attributes:
        argv: the command as run.
        returncode: exit status; negative for a signal (``-11`` is SIGSEGV); ``None`` when killed on timeout.
        stdout: captured standard output (decoded, errors replaced).
        stderr: captured standard error.
        duration_s: wall-clock seconds from start to exit or kill.
        timed_out: True when the process group was killed for running past ``timeout_s``.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its time limit."""
        return not self.timed_out and self.returncode == 0

    def stderr_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of stderr (the usual place of a crash message)."""
        return "\n".join(self.stderr.splitlines()[-lines:])


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_command(
    argv: Sequence[str | os.PathLike[str]],
    *,
    timeout_s: float,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stdin_text: str | None = None,
) -> CommandResult:
    """Run ``argv`` to completion or until ``timeout_s`` seconds have passed.

    Args:
        argv: program and arguments; the first element is looked up on ``PATH``.
        timeout_s: wall-clock limit in seconds (required; there is no "forever").
        cwd: working directory of the child.
        env: full environment of the child (default: inherit this process's).
        stdin_text: text fed to the child's standard input (default: no input, stdin is /dev/null).

    Returns:
        A :class:`CommandResult`; a timeout is reported in it (``timed_out=True``), not raised.

    Raises:
        FileNotFoundError: the program does not exist (callers turn this into a one-line error).
        ValueError: ``timeout_s`` is not positive.
    """
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    args = [os.fspath(a) for a in argv]
    start = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = proc.communicate(input=stdin_text.encode() if stdin_text is not None else None, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # pipes held open by an unkillable grandchild
            out, err = b"", b""
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        # A child that exited normally may have left members of its group behind (a spawned worker).
        if proc.poll() is not None and timed_out:
            _kill_group(proc)
    return CommandResult(
        argv=tuple(args),
        returncode=None if timed_out else proc.returncode,
        stdout=(out or b"").decode(errors="replace"),
        stderr=(err or b"").decode(errors="replace"),
        duration_s=time.monotonic() - start,
        timed_out=timed_out,
    )


class TerminationSignal(KeyboardInterrupt):
    """SIGTERM or SIGHUP turned into an interrupt (see :func:`signals_as_interrupt`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


@contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """Inside this block SIGTERM and SIGHUP raise :class:`TerminationSignal` (a KeyboardInterrupt).

    So the cleanup that Ctrl-C gets (killing the worker process groups, rolling back a stage) also runs
    when a terminal closes, a CI job is cancelled or ``timeout(1)`` fires; without it a hung candidate
    kernel would outlive kernelopt in its own process group. Only in the main thread (elsewhere a no-op).
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, _frame: object) -> None:
        raise TerminationSignal(signum)

    previous = {sig: signal.signal(sig, _raise) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
