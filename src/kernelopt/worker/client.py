"""The parent side of the worker protocol: :class:`WorkerProcess`.

A :class:`WorkerProcess` starts ``python -m kernelopt.child SERVICE`` through :func:`kernelopt.proc.start_worker`
(its own process group, secrets dropped; the child calls ``die_with_parent``), sends the service's setup
payload and waits for :class:`~kernelopt.worker.messages.Ready` within the start-up limit. Then
:meth:`WorkerProcess.request` sends one request and returns the :class:`~kernelopt.worker.messages.Reply`,
or a :class:`~kernelopt.worker.messages.Failure` value:

- ``WORKER_CRASH`` when the child died (its signal and the telling line of its log),
- ``RUN_TIMEOUT`` when no reply came within the request's limit (the child's whole group is killed first).

The child's output goes to its log (``<name>-<start>.log``), kept to its head and tail while it runs
(:class:`~kernelopt.worker.output.OutputCap`, the harness's cap): a kernel that prints without end costs a
bounded log. A dead or killed worker is started again (setup again) by the next request. Whatever the child started
dies with it: every kill is a process-group kill, also after a crash and on :meth:`WorkerProcess.close`.

Linux ends a child whose *thread* of creation exits (``PR_SET_PDEATHSIG`` follows the thread), so start
and restart workers from a thread that outlives them (the main thread; :class:`~kernelopt.worker.pool.WorkerPool`
does all its work in the calling thread).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pydantic import BaseModel

from kernelopt.env import WORKER_FDS
from kernelopt.errors import EXIT_ENVIRONMENT, KerneloptError
from kernelopt.oneline import one_line
from kernelopt.proc import WorkerCommand, start_worker
from kernelopt.worker.channel import Channel, ChannelClosed, pipe_pair
from kernelopt.worker.environment import worker_env
from kernelopt.worker.messages import (
    SETUP_ID,
    USER_CODE,
    Event,
    Failure,
    FailureKind,
    JsonObject,
    Ready,
    Reply,
    Request,
    Service,
    Setup,
    Shutdown,
)
from kernelopt.worker.output import OutputCap

if TYPE_CHECKING:
    from kernelopt.worker.forkpool import ForkedWorker

CHILD_MODULE = "kernelopt.child"
DEFAULT_STARTUP_TIMEOUT_S = 120.0
"""Starting Python, importing torch and the service's setup (a cold CUDA start on a busy node can take tens
of seconds; the same figure as the harness's ``KERNELOPT_STARTUP_TIMEOUT_S`` default)."""
EXIT_GRACE_S = 5.0
"""How long :meth:`WorkerProcess.close` waits for the child to exit after Shutdown before killing its group."""
LOG_TAIL_BYTES = 64 * 1024
TRIM_EVERY_S = 0.5
"""How often the log of a worker serving a request is trimmed to its head and tail (:class:`OutputCap`)."""

OnEvent = Callable[[Event], float | None]
"""Called with each event of the running request; a number it returns is the request's new limit,
seconds from now (a compilation started: give it the compile limit)."""


class WorkerStartError(KerneloptError):
    """A worker could not be started or set up (an environment problem, exit 3, unless its setup refused
    the problem: the caller turns ``NO_ROOM`` and ``SETUP_FAILED`` into its own errors).

    Attributes:
        failure: why (``START_TIMEOUT``, ``WORKER_CRASH``, ``SETUP_FAILED``, ``NO_ROOM``) and the one line.
        log_path: the worker's log.
    """

    exit_code = EXIT_ENVIRONMENT

    def __init__(self, service: Service, failure: Failure, log_path: Path) -> None:
        super().__init__(f"the {service.value} worker did not start: {failure.reason}", hint=f"its log: {log_path}")
        self.failure = failure
        self.log_path = log_path


def _died_in_user_code(failure: Failure, where: str, returncode: int | None) -> Failure:
    """A setup that died while it ran the user's code (``where``): an exit status (``os._exit(4)``) or a crash
    signal there is the user's file's fault, ``BAD_INPUT`` naming where; SIGKILL (the kernel's out-of-memory
    killer, or a kill from outside) stays the worker's death."""
    sig = signal_name(returncode)
    if returncode is None or sig == "SIGKILL":
        return failure.model_copy(update={"reason": f"{failure.reason} (in {where})"})
    how = f"killed the worker process with {sig}" if sig else f"ended the worker process with exit status {returncode}"
    return Failure(id=failure.id, outcome=FailureKind.BAD_INPUT, reason=f"{where} {how} while the problem was built")


def _slow_in_user_code(failure: Failure, where: str, limit_s: float) -> Failure:
    """A setup still running the user's code (``where``: ``reference.py's reference()``) when its limit ran out: that
    code's time, ``BAD_INPUT`` naming it, never a kernel's (a reference that sleeps said only "no Ready within 8 s",
    docs/faults.md refblame13 r7)."""
    return Failure(
        id=failure.id,
        outcome=FailureKind.BAD_INPUT,
        reason=f"{where} was still running when the worker's {limit_s:g} s for its start-up and setup ran out, while "
        "the problem was built (its time, not a kernel's); killed: give reference.py smaller SHAPES, or a faster "
        "reference",
    )


def signal_name(returncode: int | None) -> str | None:
    """``-11`` -> ``SIGSEGV``; ``None`` for a normal exit."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def telling_line(log_text: str) -> str | None:
    """The line of a dead worker's log that says most: Python's fatal-error line with the innermost frame
    of its stack (``Fatal Python error: Segmentation fault (kernel.py:7 in run)``), else the last non-empty
    line; ``None`` for an empty log."""
    lines = [ln.rstrip() for ln in log_text.splitlines() if ln.strip()]
    if not lines:
        return None
    fatal = [i for i, ln in enumerate(lines) if ln.startswith("Fatal Python error")]
    if fatal:
        i = fatal[-1]
        frames = [ln.strip() for ln in lines[i + 1 :] if ln.strip().startswith("File ")]
        # the innermost frame of the user's code (faulthandler prints the most recent call first)
        user = [f for f in frames if not _library_frame(f)]
        parts = (user or frames or [""])[0].split('"')
        if len(parts) >= 3:  # 'File "/x/kernel.py", line 7 in run' -> 'kernel.py:7 in run'
            return f"{lines[i]} ({Path(parts[1]).name}:{parts[2].strip().removeprefix(', line ')})"
        return lines[i]
    return one_line(lines[-1], 300)


def _library_frame(frame: str) -> bool:
    """True for a faulthandler frame line in Python's own library or an installed package."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    path = frame.split('"')[1] if frame.count('"') >= 2 else ""
    return "site-packages" in path or "dist-packages" in path or any(path.startswith(p + os.sep) for p in prefixes)


class WorkerProcess:
    """One long-lived ``kernelopt.child`` worker of a service, restarted when it dies.

    Args:
        service: the service it runs.
        setup: the service's init payload (its own pydantic model, or a JSON object).
        log_dir: folder of its logs (``<name>-<start>.log``, one per start).
        env: its environment before :func:`worker_env` (default: this process's).
        cwd: its working directory.
        startup_timeout_s: limit for the start and the service's setup, seconds.
        name: the log files' stem (default: the service's name).
        argv: the command (default ``python -m kernelopt.child SERVICE``; tests start their own services).
        forked: start it as a child forked from this process's fork server for CPU runs
            (:func:`kernelopt.worker.forkpool.shared_cpu_pool`: torch imported once per process) rather than
            as a new interpreter, where that server can be had; for a worker that runs on the CPU.
        device: the device its work runs on (``--device``): ``cpu`` runs Triton kernels in Triton's
            interpreter (:func:`worker_env`, the one rule); ``None``: the environment decides.

    Attributes:
        ready: the last start's Ready (``None`` before the first start or after a death).
        starts: how many times it was started.
        start_s: the seconds its starts took, each from its spawn to its Ready, summed (restarts included).
    """

    def __init__(
        self,
        service: Service,
        *,
        setup: BaseModel | JsonObject | None = None,
        log_dir: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
        name: str | None = None,
        argv: Sequence[str] | None = None,
        forked: bool = False,
        device: str | None = None,
    ) -> None:
        self.service = service
        self.forked = forked
        self.device = device
        self._setup = setup.model_dump(mode="json") if isinstance(setup, BaseModel) else dict(setup or {})
        self.log_dir = Path(log_dir)
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self.startup_timeout_s = startup_timeout_s
        self.name = name or service.value
        self._argv = list(argv) if argv is not None else [sys.executable, "-m", CHILD_MODULE, service.value]
        self.ready: Ready | None = None
        self.starts = 0
        self.start_s = 0.0
        self._spawned_at = 0.0
        self._command: WorkerCommand | ForkedWorker | None = None
        self._channel: Channel | None = None
        self._ids = 0
        self._pending: tuple[int, float] | None = None  # (request id, deadline) of the request in flight
        self._pending_limit_s = 0.0
        self._start_deadline: float | None = None
        self._cap: OutputCap | None = None  # the current start's log, kept to its head and tail
        self._died_with: int | None = None  # the return code of the last child that died (``-N``: signal N)

    # -- start ------------------------------------------------------------------------------------

    @property
    def log_path(self) -> Path:
        """The log of the current (or last) start."""
        return self.log_dir / f"{self.name}-{self.starts}.log"

    @property
    def alive(self) -> bool:
        """True while the child runs."""
        return self._command is not None and self._command.poll() is None

    def fileno(self) -> int:
        """The descriptor a reply arrives on (for ``select`` over several workers)."""
        if self._channel is None:
            raise ValueError(f"the {self.name} worker is not running")
        return self._channel.fileno()

    def spawn(self) -> None:
        """Start the child and send its setup, without waiting for Ready (see :meth:`await_ready`)."""
        self._discard()
        self.starts += 1
        self._spawned_at = time.monotonic()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._cap = OutputCap(self.log_path)
        (parent_r, parent_w), (child_r, child_w) = pipe_pair()
        env = worker_env(self._env, {WORKER_FDS: f"{child_r},{child_w}"}, device=self.device)
        try:
            self._command = self._start(env, (child_r, child_w))
        finally:
            os.close(child_r)
            os.close(child_w)
        self._channel = Channel(parent_r, parent_w)
        self._start_deadline = time.monotonic() + self.startup_timeout_s
        try:
            self._channel.send(Setup(payload=self._setup))
        except ChannelClosed:
            pass  # it died at once: await_ready says how

    def _start(self, env: dict[str, str], fds: tuple[int, int]) -> WorkerCommand | ForkedWorker:
        if self.forked:
            from kernelopt.worker.forkpool import PoolUnavailable, shared_cpu_pool

            pool = shared_cpu_pool(env)
            try:
                forked = (
                    None
                    if pool is None
                    else pool.start_worker(self._argv, log_path=self.log_path, pass_fds=fds, cwd=self._cwd, env=env)
                )
            except PoolUnavailable:
                forked = None
            if forked is not None:
                return forked
        return start_worker(self._argv, log_path=self.log_path, pass_fds=fds, cwd=self._cwd, env=env)

    def await_ready(self) -> Ready:
        """Wait for the Ready of the start :meth:`spawn` made.

        Raises:
            WorkerStartError: it died, timed out or its setup failed (the group is killed).
        """
        assert self._channel is not None and self._start_deadline is not None
        in_user_code: str | None = None  # where the setup runs the user's code now (its USER_CODE events)
        while True:
            left = self._start_deadline - time.monotonic()
            try:
                message = self._channel.receive(max(0.0, left))
            except ChannelClosed:
                failure = self._death(SETUP_ID, "while starting")
                if in_user_code is not None:
                    failure = _died_in_user_code(failure, in_user_code, self._died_with)
                self._discard()
                raise WorkerStartError(self.service, failure, self.log_path) from None
            if message is None:
                self._discard()
                failure = Failure(
                    id=SETUP_ID,
                    outcome=FailureKind.START_TIMEOUT,
                    reason=f"no Ready within {self.startup_timeout_s:g} s (start-up and setup); killed",
                )
                if in_user_code is not None:
                    failure = _slow_in_user_code(failure, in_user_code, self.startup_timeout_s)
                raise WorkerStartError(self.service, failure, self.log_path)
            if isinstance(message, Ready):
                self.ready = message
                self.start_s += time.monotonic() - self._spawned_at
                return message
            if isinstance(message, Failure):
                self._discard()
                raise WorkerStartError(self.service, message, self.log_path)
            if isinstance(message, Event) and message.name == USER_CODE:
                where = message.data.get("where")
                in_user_code = str(where) if where else None
            # another Event of the setup: nothing to do with it

    def start(self) -> Ready:
        """Start (or restart) the child and wait for its Ready.

        Raises:
            WorkerStartError: as :meth:`await_ready`.
        """
        self.spawn()
        return self.await_ready()

    # -- requests ---------------------------------------------------------------------------------

    def submit(self, kind: str, payload: BaseModel | JsonObject, timeout_s: float) -> int:
        """Send one request (starting the worker first when it is not running); returns its id.

        Raises:
            WorkerStartError: a needed (re)start failed.
            RuntimeError: a request is already in flight (one at a time).
        """
        if self._pending is not None:
            raise RuntimeError(f"the {self.name} worker already runs request {self._pending[0]}")
        if not self.alive or self.ready is None:
            self.start()
        assert self._channel is not None
        self._ids += 1
        body = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else dict(payload)
        self._pending = (self._ids, time.monotonic() + timeout_s)
        self._pending_limit_s = timeout_s
        try:
            self._channel.send(Request(id=self._ids, kind=kind, payload=body))
        except ChannelClosed:
            pass  # it died between requests: poll reports the death
        return self._ids

    @property
    def busy(self) -> bool:
        """True while a request is in flight."""
        return self._pending is not None

    def poll(self, wait_s: float = 0.0, on_event: OnEvent | None = None) -> Reply | Failure | None:
        """The in-flight request's answer if it is in, waiting up to ``wait_s`` seconds; ``None`` if not yet.

        Everything the child sent is read before the deadline is judged, so a reply that arrived while
        the caller was busy elsewhere is never taken for a timeout.
        """
        if self._pending is None:
            raise RuntimeError(f"the {self.name} worker has no request in flight")
        assert self._channel is not None
        request_id, deadline = self._pending
        wait_until = time.monotonic() + max(0.0, wait_s)
        while True:
            try:
                message = self._channel.receive(0.0)  # what is already there first
                if message is None:
                    left = min(wait_until, deadline, time.monotonic() + TRIM_EVERY_S) - time.monotonic()
                    message = self._channel.receive(left) if left > 0 else None
            except ChannelClosed:
                return self._finish(self._death(request_id, "while serving the request"))
            if message is None:
                if self._cap is not None:
                    self._cap.trim()  # a kernel that prints without end costs a bounded log
                if time.monotonic() >= deadline:
                    self.kill()
                    reason = f"no reply within {self._pending_limit_s:g} s; the worker's process group was killed"
                    return self._finish(Failure(id=request_id, outcome=FailureKind.RUN_TIMEOUT, reason=reason))
                if time.monotonic() >= wait_until:
                    return None
                continue
            if isinstance(message, Event):
                limit = on_event(message) if on_event is not None else None
                if limit is not None:
                    deadline = time.monotonic() + limit
                    self._pending = (request_id, deadline)
                    self._pending_limit_s = limit
                continue
            if isinstance(message, Reply | Failure) and message.id == request_id:
                return self._finish(message)
            # anything else (a stale answer) is dropped

    def request(
        self, kind: str, payload: BaseModel | JsonObject, timeout_s: float, on_event: OnEvent | None = None
    ) -> Reply | Failure:
        """Send one request and wait for its answer: the Reply, or a Failure value (``WORKER_CRASH``,
        ``RUN_TIMEOUT``, ``SERVICE_ERROR``); a dead worker is started again by the next request.

        Raises:
            WorkerStartError: the worker could not be (re)started.
        """
        self.submit(kind, payload, timeout_s)
        while True:
            answer = self.poll(wait_s=3600.0, on_event=on_event)
            if answer is not None:
                return answer

    def _finish(self, answer: Reply | Failure) -> Reply | Failure:
        self._pending = None
        if self._cap is not None:
            self._cap.trim()
        return answer

    # -- death and end ----------------------------------------------------------------------------

    def _death(self, request_id: int, when: str) -> Failure:
        """The Failure of a child that closed the channel: reaped (its group killed), with its signal and log line."""
        code = None
        if self._command is not None:
            code = self._command.wait(EXIT_GRACE_S)
            self._command.kill()
            code = self._command.returncode if code is None else code
        self._died_with = code
        self.ready = None
        line = telling_line(self._log_tail())
        sig = signal_name(code)
        what = f"the worker died with {sig}" if sig else f"the worker exited with code {code} without a reply"
        return Failure(
            id=request_id, outcome=FailureKind.WORKER_CRASH, reason=f"{what} {when}" + (f": {line}" if line else "")
        )

    def _log_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(max(0, os.path.getsize(self.log_path) - LOG_TAIL_BYTES))
                return fh.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """Kill the child's process group now (a later request starts it again)."""
        self._discard()

    def _discard(self) -> None:
        if self._command is not None:
            self._command.kill()
            self._command = None
        if self._cap is not None:  # the writer is gone: the log becomes head, the drop's line, tail
            self._cap.finish()
            self._cap = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        self.ready = None
        self._pending = None

    def close(self) -> None:
        """Ask the child to shut down, give it :data:`EXIT_GRACE_S`, then kill its group (harmless twice)."""
        if self._channel is not None and self._command is not None and self._pending is None:
            try:
                self._channel.send(Shutdown())
            except ChannelClosed:
                pass
            else:
                self._command.wait(EXIT_GRACE_S)
        self._discard()

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
