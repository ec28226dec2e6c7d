"""The one gateway for external commands.

Every subprocess kernelopt starts goes through this module: an argv list (never a shell string), a
mandatory timeout, the child in its own process group (``start_new_session``) so that on timeout the
whole group is killed, and the output captured so far is kept. :func:`run_command` runs a command to
completion with its output captured; :func:`start_command` starts one whose output goes to files and
hands it to a caller that watches it while it runs (the harness worker, with its per-phase limits);
:func:`start_worker` starts a long-lived worker (:mod:`kernelopt.worker`) that talks over a pipe pair
passed down to it, whose caller bounds its start-up and each request and kills its group.

Secrets stay out of children: every command runs with :func:`child_env` of the environment it is given
(or of this process's), which drops ``KERNELOPT_LLM_API_KEY`` and every variable whose name looks like a
secret (:func:`kernelopt.redact.is_secret_name`: ``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``,
``*CREDENTIAL*``, ...). A child can still read its parent's environment (``/proc/<ppid>/environ``), so what
it prints is redacted where it is caught: a :class:`CommandResult`'s output, and the output files of
:func:`start_command` once the command has ended.
A variable named in ``KERNELOPT_KEEP_ENV`` (comma-separated names, e.g. ``ANTHROPIC_API_KEY`` for a
coding agent that needs it) or in a call's ``keep`` is passed on all the same.
"""

from __future__ import annotations

import errno
import gc
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import time
import uuid
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn

from kernelopt.env import PARENT_PID, inherited, raw_value, read_parent_pid
from kernelopt.fileio import HELD_SIGNALS, pid_alive, redact_file
from kernelopt.redact import ALWAYS_DROPPED, SECRET_NAME, is_secret_name, redact, secret_values

__all__ = [
    "ALWAYS_DROPPED",
    "COMMAND_ID",
    "SECRET_NAME",
    "CommandResult",
    "LimitedCommand",
    "RunningCommand",
    "TerminationSignal",
    "adopt_descendants",
    "child_env",
    "die_with_parent",
    "exit_process",
    "interrupt_signal",
    "is_secret_name",
    "kill_descendants",
    "kill_strays",
    "run_command",
    "secret_values",
    "signals_as_interrupt",
    "start_command",
]

KEEP_ENV = "KERNELOPT_KEEP_ENV"
"""Comma-separated names of secret-looking variables that children may see all the same."""
COMMAND_ID = "KERNELOPT_COMMAND_ID"
"""Set in the environment of every command :func:`start_command` starts (and of a :func:`run_command`
asked to ``kill_leftovers``): a token of that command, inherited by everything it starts, so that whatever
survives it (a process started with ``setsid``, in a session of its own) is found and killed
(:func:`kill_strays`)."""


def exit_process(code: int) -> NoReturn:
    """``sys.exit(code)`` for the end of a kernelopt process (a worker's or the CLI's ``main`` returned
    ``code``), without the interpreter's last garbage collections over every object it imported: ``gc.freeze``
    moves them all to the permanent generation, which the collections at shutdown skip. A harness worker that
    imported torch spent about a fifth of its CPU time (0.35 s of 1.7 s) in them, each time it ended.
    ``atexit`` hooks (:func:`kill_descendants`), buffered output and module teardown run as with ``sys.exit``.
    """
    gc.freeze()
    sys.exit(code)


def die_with_parent() -> None:
    """Make this process (a worker kernelopt started in a process group of its own) end when its parent
    ends, however the parent ends (SIGKILL from a batch's time limit included): a worker leads its own
    group, so the parent's group kill never reaches it. Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``;
    elsewhere nothing. Called first thing by each worker's ``main``; never at import.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    # The parent may have died before the request took effect (during this process's start-up): then
    # this process was handed to init, or the kernelopt process that started the chain is gone (a
    # profiled driver's parent is ncu, so the recorded pid is an ancestor, not always the parent).
    started_by = read_parent_pid()
    if os.getppid() == 1 or (started_by is not None and not pid_alive(started_by)):
        os._exit(1)
    adopt_descendants()


def adopt_descendants() -> None:
    """Make this worker the reaper of everything it starts, and kill all of it when the worker exits.

    Linux ``prctl(PR_SET_CHILD_SUBREAPER)``: a process the kernel under test starts and orphans (a
    daemon that double-forks, one started with ``setsid`` in a session of its own) is handed to this
    worker instead of init, and an ``atexit`` hook kills every descendant (:func:`kill_descendants`).
    Called by :func:`die_with_parent`, so every worker does it. Elsewhere nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    import atexit
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # 36 = PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return
    atexit.register(kill_descendants)


def _pids() -> list[int]:
    """Every process id (Linux ``/proc``); empty elsewhere."""
    return [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()] if Path("/proc").is_dir() else []


def _proc_table() -> dict[int, int]:
    """pid -> parent pid of every process (Linux ``/proc``); empty elsewhere."""
    table: dict[int, int] = {}
    for pid in _pids():
        entry = Path(f"/proc/{pid}")
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            table[pid] = int(fields[1])
    return table


def _kill_all(pids: Collection[int], *, wait_s: float = 2.0) -> list[int]:
    """SIGKILL ``pids``; wait up to ``wait_s`` until they are gone (or zombies); the pids signalled."""
    killed = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            continue
    deadline = time.monotonic() + wait_s
    while killed and time.monotonic() < deadline and any(_running(p) for p in killed):
        time.sleep(0.01)
    return killed


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] != "Z"


def kill_descendants(pid: int | None = None) -> list[int]:
    """SIGKILL every descendant of ``pid`` (default: this process) and reap this process's children;
    returns the pids killed."""
    root = os.getpid() if pid is None else pid
    if root == os.getpid() and _childless():
        return []  # no child, so no descendant: the /proc table is not read (every pooled run's end)
    table = _proc_table()
    found: set[int] = set()
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in table.items() if pp == parent and p not in found]
        found.update(kids)
        frontier += kids
    killed = _kill_all(found)
    if root == os.getpid():
        with _suppress_child_errors():
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
    return killed


#: Linux's ``__WALL``: wait for a child whatever signal it sends its parent when it ends (a ``clone`` child too).
_WALL = 0x40000000


def _childless() -> bool:
    """Whether this process has no child at all, running, stopped or ended and not reaped (Linux ``waitid``, nothing
    reaped). Then it has no descendant either: a descendant whose parent ended is handed to the nearest subreaper
    (this process, where :func:`adopt_descendants` made it one) or leaves this process's tree, where the parent ids
    :func:`kill_descendants` follows no longer lead to it. ``False`` where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT | _WALL)
    except ChildProcessError:
        return True
    except OSError:
        return False
    return False


@contextmanager
def _suppress_child_errors() -> Iterator[None]:
    try:
        yield
    except ChildProcessError:
        return


def kill_strays(token: str) -> list[int]:
    """SIGKILL every process whose environment carries ``KERNELOPT_COMMAND_ID=token`` (what a command
    left running after it ended, in whatever session or process group); returns their pids.

    The check that nothing of a worker survives it: a process that moved to a session of its own
    (``setsid``) escapes the process-group kill, but not its inherited environment.
    """
    needle = f"{COMMAND_ID}={token}".encode()
    strays = []
    for pid in _pids():  # the ids alone: each process's environment is read, never its parent
        if pid == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            strays.append(pid)
    return _kill_all(strays)


def child_env(base: Mapping[str, str] | None = None, *, keep: Collection[str] = ()) -> dict[str, str]:
    """``base`` (default: this process's environment) without secret-looking variables.

    Args:
        base: the environment to start from.
        keep: names passed on even when they look like secrets (besides those in ``KERNELOPT_KEEP_ENV``).
    """
    env = inherited() if base is None else dict(base)
    keep_env = env[KEEP_ENV] if KEEP_ENV in env else (raw_value("keep_env") or "")
    kept = {n.strip() for n in keep_env.split(",") if n.strip()}
    kept |= set(keep)
    out = {k: v for k, v in env.items() if k not in ALWAYS_DROPPED and (k in kept or not is_secret_name(k))}
    out[PARENT_PID] = str(os.getpid())
    return out


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
        silent_s: seconds it had printed nothing (stdout or stderr) when it ended, or, stopped past ``timeout_s``,
            when its limit came (what it printed as it was stopped does not count): from its last output, or from
            its start when it printed none; ``None`` where it was not watched (:func:`run_command` watches every
            command it runs).
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool
    silent_s: float | None = None

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its time limit."""
        return not self.timed_out and self.returncode == 0

    def stderr_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of stderr (the usual place of a crash message)."""
        return "\n".join(self.stderr.splitlines()[-lines:])

    @classmethod
    def captured(
        cls,
        argv: Sequence[str],
        returncode: int | None,
        out: bytes,
        err: bytes,
        *,
        started: float,
        timed_out: bool,
        silent_s: float | None = None,
    ) -> CommandResult:
        """The result of a command whose output was captured as bytes: decoded (errors replaced) and redacted
        (:func:`kernelopt.redact.redact`: whatever a child prints is kept only without secrets)."""
        ended = time.monotonic()
        return cls(
            argv=tuple(argv),
            returncode=returncode,
            stdout=redact(out.decode(errors="replace")),
            stderr=redact(err.decode(errors="replace")),
            duration_s=ended - started,
            timed_out=timed_out,
            silent_s=silent_s,
        )


def _kill_group(proc: subprocess.Popen[bytes], sig: signal.Signals = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _start(
    args: list[str],
    *,
    cwd: Path | str | None,
    env: Mapping[str, str] | None,
    stdin: int | IO[bytes],
    stdout: int | IO[bytes],
    stderr: int | IO[bytes],
    keep: Collection[str] = (),
    pass_fds: Sequence[int] = (),
    token: str | None = None,
) -> subprocess.Popen[bytes]:
    """``Popen`` with the child leading a new process group (so one ``killpg`` reaches all it starts),
    with secrets dropped from its environment (:func:`child_env`) and the command's ``token`` in it."""
    child = child_env(env, keep=keep)
    if token is not None:
        child[COMMAND_ID] = token
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=child,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )


def run_command(
    argv: Sequence[str | os.PathLike[str]],
    *,
    timeout_s: float,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stdin_text: str | None = None,
    keep: Collection[str] = (),
    kill_leftovers: bool = False,
    term_grace_s: float = 0.0,
    pass_fds: Sequence[int] = (),
) -> CommandResult:
    """Run ``argv`` to completion or until ``timeout_s`` seconds have passed.

    Args:
        argv: program and arguments; the first element is looked up on ``PATH``.
        timeout_s: wall-clock limit in seconds (required; there is no "forever").
        cwd: working directory of the child.
        env: full environment of the child (default: inherit this process's); secrets are dropped
            from it (:func:`child_env`).
        stdin_text: text fed to the child's standard input (default: no input, stdin is /dev/null).
        keep: secret-looking variable names the child may see all the same.
        kill_leftovers: once the command has ended, kill whatever it left running, in any session and whatever
            its environment (it runs under :mod:`kernelopt.subreaper`, and :func:`kill_strays` sweeps by its token;
            for commands that run foreign code: an agent).
        term_grace_s: past ``timeout_s``, the group gets SIGTERM and this many seconds to exit before
            SIGKILL (0: SIGKILL at once). The whole run then lasts up to ``timeout_s + term_grace_s``.
        pass_fds: descriptors the child inherits (a lock handed to it: ``RunLock.handed_to_child``).

    Returns:
        A :class:`CommandResult`; a timeout is reported in it (``timed_out=True``), not raised.

    Raises:
        FileNotFoundError: the program does not exist (callers turn this into a one-line error).
        ValueError: ``timeout_s`` is not positive.
    """
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    args = [os.fspath(a) for a in argv]
    # Encoded before the command starts: input that cannot be encoded (a lone surrogate) raised once the child ran,
    # outside the guard that kills it, and left it running with its pipes open (review24 r41).
    stdin_data = stdin_text.encode() if stdin_text is not None else None
    started = _under_subreaper(args, cwd, env) if kill_leftovers else args
    start = time.monotonic()
    token = uuid.uuid4().hex if kill_leftovers else None
    proc = _start(
        started,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        keep=keep,
        pass_fds=pass_fds,
        token=token,
    )
    timed_out = False
    pipes = _Pipes(proc, stdin_data, start)
    try:
        _communicate(proc, pipes, start + timeout_s, token)
        silent_s = time.monotonic() - pipes.last_output
    except subprocess.TimeoutExpired:
        timed_out = True
        silent_s = time.monotonic() - pipes.last_output  # at the limit: what it says as it is stopped is not counted
        _end_group(proc, pipes, term_grace_s, reaper=started is not args)
    except BaseException:
        _kill_command(proc, reaper=started is not args)
        proc.wait()
        raise
    finally:
        pipes.close()
        # A child that exited normally may have left members of its group behind (a spawned worker).
        if proc.poll() is not None and timed_out:
            _kill_group(proc)
        if token is not None:
            kill_strays(token)
    return CommandResult.captured(
        args,
        None if timed_out else proc.returncode,
        pipes.stdout,
        pipes.stderr,
        started=start,
        timed_out=timed_out,
        silent_s=silent_s,
    )


SUBREAPER = Path(__file__).with_name("subreaper.py")


def _under_subreaper(args: list[str], cwd: Path | str | None, env: Mapping[str, str] | None) -> list[str]:
    """``args`` run under :mod:`kernelopt.subreaper` (on Linux), which kills what the command leaves running however
    it hid (a daemon with an emptied environment escapes :func:`kill_strays`); the program is looked up first, so
    that a missing or non-executable one raises here as it would without the wrapper.

    Raises:
        FileNotFoundError: the program does not exist.
        PermissionError: it is not executable.
    """
    program = args[0]
    if os.sep in program:
        found: str | None = program if os.path.isabs(program) else os.path.join(cwd or ".", program)
        found = found if found is not None and os.path.isfile(found) else None
    else:
        found = shutil.which(program, path=os.pathsep.join(os.get_exec_path(dict(env) if env is not None else None)))
    if found is None:
        raise FileNotFoundError(errno.ENOENT, "no such program", program)
    if not os.access(found, os.X_OK):
        raise PermissionError(errno.EACCES, "not executable", program)
    if not sys.platform.startswith("linux"):
        return args
    return [sys.executable, "-I", "-S", str(SUBREAPER), *args]


REAP_NOW = signal.SIGUSR1
"""What the subreaper takes for "kill the command and all it left now" (``kernelopt.subreaper.REAP_NOW``; the layers
keep the two foundation modules apart, and test_agents19_cases holds them together)."""
REAP_WAIT_S = 5.0


def _kill_command(proc: subprocess.Popen[bytes], *, reaper: bool) -> None:
    """SIGKILL a command's group; under the subreaper (``reaper``), first have it kill the command and whatever it
    left, and wait for it up to :data:`REAP_WAIT_S`: the group's SIGKILL ends the subreaper too, and a daemon in a
    session of its own with an emptied environment then outlived the run (review19 r1)."""
    if reaper and proc.poll() is None:
        try:
            os.kill(proc.pid, REAP_NOW)
            proc.wait(timeout=REAP_WAIT_S)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    _kill_group(proc)


class _Pipes:
    """A command's standard input, output and error served together until both outputs close: the loop of
    ``Popen.communicate``, which also notes when the command last printed (:attr:`last_output`). A model whose API
    went silent after a tool call looked, at its time limit, like one still calling tools (discovery23's seen line):
    how long the command printed nothing is what tells the two apart (newuser21 n155)."""

    _CHUNK = 65536

    def __init__(self, proc: subprocess.Popen[bytes], stdin_data: bytes | None, started: float) -> None:
        self._proc = proc
        self._selector = selectors.DefaultSelector()
        self._out: dict[int, bytearray] = {}
        self._fds: dict[str, int] = {}
        for name, stream in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            if stream is not None:
                self._fds[name] = stream.fileno()
                self._out[stream.fileno()] = bytearray()
                self._selector.register(stream, selectors.EVENT_READ)
        self._data = memoryview(stdin_data or b"")
        if proc.stdin is not None:
            if self._data:
                self._selector.register(proc.stdin, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        self.last_output: float = started
        """``time.monotonic()`` of the last byte read from stdout or stderr (the start, until one is)."""

    @property
    def stdout(self) -> bytes:
        """What the command printed on stdout so far."""
        return bytes(self._out[self._fds["stdout"]]) if "stdout" in self._fds else b""

    @property
    def stderr(self) -> bytes:
        """What the command printed on stderr so far."""
        return bytes(self._out[self._fds["stderr"]]) if "stderr" in self._fds else b""

    def serve(self, until: float, *, tick_s: float | None = None, tick: Callable[[], None] | None = None) -> bool:
        """Write stdin and read stdout and stderr until both outputs are closed (True) or ``until`` (monotonic)
        has passed (False); ``tick`` is called every ``tick_s`` seconds meanwhile."""
        ticker = (tick, tick_s) if tick is not None and tick_s else None
        next_tick = time.monotonic() + ticker[1] if ticker else until
        while self._selector.get_map():
            now = time.monotonic()
            if now >= until:
                return False
            if ticker and now >= next_tick:
                ticker[0]()
                next_tick = now + ticker[1]
            # A tick_s without a tick must not wake the wait: past next_tick it was a select(0) in a loop (review24
            # r40: every silent command without a token, ncu's included, spun a core until it ended).
            ready = self._selector.select(min(until, next_tick) - now)
            for key, _ in ready:
                stream = key.fileobj
                if stream is self._proc.stdin:
                    self._write(key.fd)
                    continue
                chunk = os.read(key.fd, self._CHUNK)
                if chunk:
                    self._out[key.fd] += chunk
                    self.last_output = time.monotonic()
                else:
                    self._selector.unregister(stream)
        return True

    def _write(self, fd: int) -> None:
        try:
            written = os.write(fd, self._data[: select.PIPE_BUF])
        except BrokenPipeError:  # the command closed its input: the rest is not wanted
            written = len(self._data)
        self._data = self._data[written:]
        if not self._data:
            self._selector.unregister(fd)
            with suppress(BrokenPipeError):
                self._proc.stdin.close()  # type: ignore[union-attr]

    def close(self) -> None:
        """Close the selector and the parent's ends of the pipes."""
        self._selector.close()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with suppress(OSError):
                    stream.close()


def _end_group(proc: subprocess.Popen[bytes], pipes: _Pipes, grace_s: float, *, reaper: bool = False) -> None:
    """End a command past its limit and read what it printed: SIGTERM to its group and ``grace_s`` seconds
    to exit (its output still read meanwhile) when ``grace_s`` > 0, then SIGKILL to the group
    (:func:`_kill_command`)."""
    if grace_s > 0:
        _kill_group(proc, signal.SIGTERM)
        until = time.monotonic() + grace_s
        if pipes.serve(until) and _waited(proc, until):
            _kill_group(proc)  # what the group left behind
            return
    _kill_command(proc, reaper=reaper)
    until = time.monotonic() + 5
    pipes.serve(until)  # pipes held open by an unkillable grandchild: what was read so far
    _waited(proc, until)


def _waited(proc: subprocess.Popen[bytes], until: float) -> bool:
    """``proc`` reaped by ``until`` (monotonic)."""
    try:
        proc.wait(timeout=max(until - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return False
    return True


def _communicate(proc: subprocess.Popen[bytes], pipes: _Pipes, deadline: float, token: str | None) -> None:
    """Serve ``pipes`` until the command has exited and closed its outputs, by ``deadline`` (monotonic); raises
    ``subprocess.TimeoutExpired`` past it.

    With a ``token`` (a swept command): once the command itself has exited, what it left running in
    other sessions is killed, so a daemon holding its output pipes does not keep us waiting until the limit.
    """

    def exited_leaving_strays() -> None:
        if proc.poll() is not None:
            kill_strays(token or "")
            _kill_group(proc)

    served = pipes.serve(deadline, tick_s=0.5, tick=exited_leaving_strays if token else None)
    if not served or not _waited(proc, deadline):
        raise subprocess.TimeoutExpired(proc.args, 0)


class LimitedCommand:
    """A running command under its time limit: the polling half of :class:`RunningCommand` (and of the
    batch's fork-server runs), given how to see that it exited and how to kill it.

    Attributes:
        started_at: ``time.monotonic()`` just before the child was started.
        timeout_s: the wall-clock limit, seconds from ``started_at``.
        timed_out: True once it was killed for running past ``timeout_s``.
    """

    def __init__(self, *, started_at: float, timeout_s: float) -> None:
        self.started_at = started_at
        self.timeout_s = timeout_s
        self.timed_out = False
        self._exit_by: float | None = None

    def exited(self) -> bool:
        """True once the command has exited (it is reaped)."""
        raise NotImplementedError

    def kill(self) -> None:
        """Kill the command's whole process group; harmless when it has exited."""
        raise NotImplementedError

    def running(self) -> bool:
        """True while the command runs; False once it exited or was killed.

        Past ``timeout_s`` (or past the grace of :meth:`allow_exit`) the whole process group is killed
        here, so a caller's polling loop cannot outlive the limit.
        """
        if self.exited():
            return False
        now = time.monotonic()
        if self._exit_by is not None:
            if now > self._exit_by:  # its work is done but it does not exit (a hung teardown)
                self.kill()
                return False
        elif now - self.started_at > self.timeout_s:
            self.timed_out = True
            self.kill()
            return False
        return True

    def allow_exit(self, grace_s: float) -> None:
        """The command's work is done (its result is written): the time limit no longer applies.

        If it has not exited ``grace_s`` seconds after the first call, :meth:`running` kills its group;
        that is not a timeout (``timed_out`` stays False, the return code is the kill signal's).
        """
        if self._exit_by is None and not self.timed_out:
            self._exit_by = time.monotonic() + grace_s


class RunningCommand(LimitedCommand):
    """A command started by :func:`start_command`, watched by its caller.

    The caller polls :meth:`running` in its own loop (reading progress the command reports) and may
    :meth:`kill` it early; the gateway keeps the command's time limit: past ``timeout_s`` the next
    :meth:`running` kills the whole process group and sets :attr:`timed_out`.

    Attributes:
        argv: the command as run.
        pid: the child's process id (also its process group id).
        started_at: ``time.monotonic()`` just before the child was started.
        timeout_s: the wall-clock limit, seconds from ``started_at``.
        timed_out: True once the group was killed for running past ``timeout_s``.
        token: the command's ``KERNELOPT_COMMAND_ID``.
        strays: pids of what it left running in other sessions, killed when the block was left.
    """

    def __init__(
        self, proc: subprocess.Popen[bytes], argv: tuple[str, ...], timeout_s: float, started_at: float, token: str
    ):
        super().__init__(started_at=started_at, timeout_s=timeout_s)
        self._proc = proc
        self.token = token
        self.strays: list[int] = []
        self.argv = argv
        self.pid = proc.pid

    def exited(self) -> bool:
        return self._proc.poll() is not None

    def kill(self) -> None:
        """Kill the whole process group (SIGKILL) and reap the command; harmless when it has exited."""
        _kill_group(self._proc)
        self._proc.wait()

    @property
    def returncode(self) -> int | None:
        """Exit status (negative for a signal); ``None`` while running or when killed on timeout."""
        return None if self.timed_out else self._proc.returncode


def _fresh_append(path: Path) -> IO[bytes]:
    """``path`` created or truncated, opened for appending (O_APPEND), binary."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
    return os.fdopen(fd, "wb")


@contextmanager
def start_command(
    argv: Sequence[str | os.PathLike[str]],
    *,
    timeout_s: float,
    stdout_path: Path,
    stderr_path: Path,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[RunningCommand]:
    """Start ``argv`` with its output going to files, for a caller that watches it while it runs.

    Standard output and error are written to ``stdout_path`` and ``stderr_path`` (no pipe can fill
    up and block the command; what it wrote before a kill stays there); stdin is /dev/null. However
    the block is left (normally, by an error, by Ctrl-C or a :class:`TerminationSignal`), the whole
    process group is killed and the command reaped, and whatever it started in other sessions
    (``setsid``) is found by its ``KERNELOPT_COMMAND_ID`` and killed: nothing it started survives it.

    Args:
        argv: program and arguments; the first element is looked up on ``PATH``.
        timeout_s: wall-clock limit in seconds, enforced by :meth:`RunningCommand.running`.
        stdout_path: file for standard output (created or truncated).
        stderr_path: file for standard error (created or truncated).
        cwd: working directory of the child.
        env: full environment of the child (default: inherit this process's); secrets are dropped
            from it (:func:`child_env`).

    Yields:
        The :class:`RunningCommand`.

    Raises:
        FileNotFoundError: the program does not exist.
        OSError: the program cannot be started.
        ValueError: ``timeout_s`` is not positive.
    """
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    args = [os.fspath(a) for a in argv]
    start = time.monotonic()
    # Append mode: a watcher may cut a file that floods (kernelopt.worker.output.OutputCap) and the
    # child's next write then lands at the new end instead of leaving a hole.
    token = uuid.uuid4().hex
    with _fresh_append(stdout_path) as out_fh, _fresh_append(stderr_path) as err_fh:
        proc = _start(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out_fh, stderr=err_fh, token=token)
    command = RunningCommand(proc, tuple(args), timeout_s, start, token)
    try:
        yield command
    finally:
        command.kill()  # grandchildren it started, whatever happened
        command.strays = kill_strays(token)  # and what it started in sessions of their own
        for path in (stdout_path, stderr_path):
            redact_file(path)


def _kill_pid_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class WorkerCommand:
    """A long-lived worker started by :func:`start_worker`; its caller owns it until :meth:`kill`.

    Attributes:
        argv: the command as run.
        pid: the child's process id (also its process group id).
        log_path: the file its standard output and error are appended to.
    """

    def __init__(
        self, proc: subprocess.Popen[bytes], argv: tuple[str, ...], log_path: Path, token: str | None = None
    ) -> None:
        self._proc = proc
        self._token = token
        self.argv = argv
        self.pid = proc.pid
        self.log_path = log_path
        # a worker its owner forgot is killed (with its group) when this object goes or the interpreter exits
        self._finalizer = weakref.finalize(self, _kill_pid_group, proc.pid)

    def poll(self) -> int | None:
        """The exit status (negative for a signal), or ``None`` while it runs."""
        return self._proc.poll()

    def wait(self, timeout_s: float) -> int | None:
        """Wait up to ``timeout_s`` seconds for it to exit; its exit status, or ``None`` if it still runs."""
        try:
            return self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill its whole process group (SIGKILL; what it started too, in any session: :func:`kill_strays`)
        and reap it; harmless when it has exited."""
        _kill_group(self._proc)
        self._proc.wait()
        if self._token is not None:
            kill_strays(self._token)
        self._finalizer.detach()

    @property
    def returncode(self) -> int | None:
        """Exit status (negative for a signal); ``None`` while it runs."""
        return self._proc.returncode


def start_worker(
    argv: Sequence[str | os.PathLike[str]],
    *,
    log_path: Path,
    pass_fds: Sequence[int] = (),
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    keep: Collection[str] = (),
) -> WorkerCommand:
    """Start a long-lived worker process that its caller talks to over ``pass_fds`` (a pipe pair).

    Like every command here the worker leads a process group of its own and gets no secrets; unlike
    :func:`run_command` it has no time limit of its own: the caller (:class:`kernelopt.worker.client.WorkerProcess`)
    bounds its start-up and every request, and kills the group past them. Standard output and error are
    both appended to ``log_path`` (a kernel's prints never reach the caller's channel); stdin is /dev/null.

    Args:
        argv: program and arguments.
        log_path: the worker's log (created or truncated).
        pass_fds: descriptors the child keeps open (its ends of the pipe pair).
        cwd: working directory of the child.
        env: its environment (default: this process's); secrets are dropped (:func:`child_env`).
        keep: secret-looking variable names it may see all the same.

    Raises:
        FileNotFoundError: the program does not exist.
        OSError: the program cannot be started.
    """
    args = [os.fspath(a) for a in argv]
    token = uuid.uuid4().hex
    with _fresh_append(log_path) as log:
        proc = _start(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            keep=keep,
            pass_fds=pass_fds,
            token=token,
        )
    return WorkerCommand(proc, tuple(args), log_path, token)


class TerminationSignal(KeyboardInterrupt):
    """SIGTERM or SIGHUP turned into an interrupt (see :func:`signals_as_interrupt`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


def interrupt_signal(exc: BaseException) -> str | None:
    """``SIGTERM`` / ``SIGHUP`` for an interrupt a termination signal raised (:class:`TerminationSignal`); ``None``
    for Ctrl-C (a plain ``KeyboardInterrupt``), which needs no name."""
    return signal.Signals(exc.signum).name if isinstance(exc, TerminationSignal) else None


@contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """Inside this block SIGTERM and SIGHUP raise :class:`TerminationSignal` (a KeyboardInterrupt).

    So the cleanup that Ctrl-C gets (killing the worker process groups, rolling back a stage) also runs
    when a terminal closes, a CI job is cancelled or ``timeout(1)`` fires; without it a hung candidate
    kernel would outlive kernelopt in its own process group. At the end of the block SIGINT, SIGTERM and
    SIGHUP get back the handlers they had (also after :func:`kernelopt.cli.start.ignore_interrupts`). Only in
    the main thread (elsewhere a no-op).
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, _frame: object) -> None:
        raise TerminationSignal(signum)

    previous = {sig: signal.getsignal(sig) for sig in HELD_SIGNALS}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: a handler set outside Python, never replaced
                signal.signal(sig, handler)
