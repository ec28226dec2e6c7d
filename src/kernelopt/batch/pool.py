"""The pool of pre-started harness workers that ``kernelopt batch`` validates problems with.

:class:`WorkerPool` starts the fork server (:mod:`kernelopt.batch.forkserver`) through
:func:`kernelopt.proc.start_command` and is a :class:`~kernelopt.harness.runner.WorkerStarter`: inside
``with workers_started_by(pool.start):`` the gate's ``python -m kernelopt.harness.worker JOB.json`` runs
in a fresh child forked from the server (torch and triton already imported) instead of a new interpreter,
watched and killed exactly as a fresh process is (:class:`PooledWorker` has
:class:`~kernelopt.proc.RunningCommand`'s interface). A command the server has no entry point for is
started the ordinary way.

The pool replaces what fails: a child that crashes or hangs is one run's result (the next run gets a new
child); a server that died is started again at the next run (``restarts`` counts it). The interface the
batch uses is small (``start``, ``close``, ``ready``, ``restarts``) so that the pool can move onto the
generic worker protocol (``kernelopt.worker``) without its users changing.
"""

from __future__ import annotations

import itertools
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from kernelopt.batch.forkserver import (
    ENTRY_POINTS,
    MESSAGE,
    Exited,
    Kill,
    Launch,
    Launched,
    Ready,
    Refused,
    Shutdown,
    encode,
)
from kernelopt.env import inherited
from kernelopt.errors import EnvironmentProblem
from kernelopt.harness.runner import WatchedWorker, worker_env
from kernelopt.oneline import one_line
from kernelopt.proc import LimitedCommand, RunningCommand, child_env, start_command

SERVER_MODULE = "kernelopt.batch.forkserver"
POLL_S = 0.02
#: Our choice: a killed child (SIGKILL to its group) is reaped within milliseconds; past this it is given up.
KILL_WAIT_S = 10.0
#: Our choice: how often a server that keeps dying is started again before the batch stops with an error.
MAX_RESTARTS = 3


class PoolUnavailable(EnvironmentProblem):
    """The fork server cannot be started (again), or the pool is closed: an environment problem (exit 3)."""


def warm_entry(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """``(module, args)`` when ``argv`` is ``[this python, -m, MODULE, *args]`` with MODULE an entry point
    of the fork server; ``None`` for anything else (started the ordinary way). Pure."""
    if len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m" and argv[2] in ENTRY_POINTS:
        return argv[2], list(argv[3:])
    return None


class PooledWorker(LimitedCommand):
    """A run in a child of the fork server, with :class:`kernelopt.proc.RunningCommand`'s interface.

    Attributes:
        pid: the child's process id (it leads its own process group).
        started_at: ``time.monotonic()`` just before the launch was sent.
        timeout_s: the wall-clock limit from ``started_at``, enforced by :meth:`running`.
        timed_out: True once it was killed for running past ``timeout_s``.
        warm: it ran in the spare the server had ready.
    """

    def __init__(self, pool: WorkerPool, pid: int, *, started_at: float, timeout_s: float, warm: bool) -> None:
        super().__init__(started_at=started_at, timeout_s=timeout_s)
        self._pool = pool
        self.pid = pid
        self.warm = warm

    def exited(self) -> bool:
        return self._pool.exit_status(self.pid) is not None

    def kill(self) -> None:
        self._pool.kill(self.pid)

    @property
    def returncode(self) -> int | None:
        return None if self.timed_out else self._pool.exit_status(self.pid)


class WorkerPool:
    """A fork server with torch and triton imported, and the runs it forks.

    Args:
        run_dir: folder for the server's stdout.txt / stderr.txt.
        warm_device: ``cpu`` (spares start nothing) or anything else (spares start CUDA when present).
        lifetime_s: the server's wall-clock limit (the batch's whole length at most).
        startup_timeout_s: how long the server may take to import torch and answer.
        spare: keep one child forked and warmed ahead.
        env: the environment the server and the runs start from (default: this process's).

    Raises (on :meth:`open`, and on :meth:`start` when the server must be started again):
        PoolUnavailable: the server did not start or answer, died :data:`MAX_RESTARTS` times, or the pool
            is closed.
    """

    def __init__(
        self,
        run_dir: Path,
        *,
        warm_device: str,
        lifetime_s: float,
        startup_timeout_s: float = 120.0,
        spare: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.warm_device = warm_device
        self.lifetime_s = lifetime_s
        self.startup_timeout_s = startup_timeout_s
        self.spare = spare
        self.env = inherited() if env is None else dict(env)
        self.ready: Ready | None = None
        self.restarts = 0
        self.launches = 0
        self.warm_launches = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stack: ExitStack | None = None
        self._server: RunningCommand | None = None
        self._conn: socket.socket | None = None
        self._inbox = b""
        self._replies: dict[int, Launched | Refused] = {}
        self._exited: dict[int, int] = {}
        self._lost: set[int] = set()
        self._opened = False
        self._closed = False

    # -- life ----------------------------------------------------------------------------------

    def __enter__(self) -> WorkerPool:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Start the server and wait for its :class:`Ready`."""
        with self._lock:
            self._closed = False
            self._open()

    def _open(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        sock_dir = Path(tempfile.mkdtemp(prefix="kernelopt-pool-"))  # short: a socket path has ~100 bytes
        sock_path = sock_dir / "s"
        stack = ExitStack()
        stack.callback(shutil.rmtree, sock_dir, True)
        argv = [sys.executable, "-m", SERVER_MODULE, str(sock_path), "--warm", self.warm_device]
        if not self.spare:
            argv.append("--no-spare")
        server = stack.enter_context(
            start_command(
                argv,
                timeout_s=self.lifetime_s,
                stdout_path=self.run_dir / "server.stdout.txt",
                stderr_path=self.run_dir / "server.stderr.txt",
                # on the CPU the server imports triton for its children: the interpreter has to be on
                # before that import, or a child's tl.sum/tl.max are compiled functions it cannot call
                env=worker_env(self.env, {}, device=self.warm_device),
            )
        )
        try:
            conn = self._connect(server, sock_path)
            self._stack, self._server, self._conn, self._inbox = stack, server, conn, b""
            self._wait(lambda: self.ready is not None, self.startup_timeout_s, what="its start")
            if self.ready is not None and self.ready.cuda_initialized:  # a fork would inherit a dead CUDA
                raise PoolUnavailable(
                    "the worker pool's fork server started CUDA while importing, so no fork of it could use CUDA",
                    hint="--cold runs each problem in its own process",
                )
            self._opened = True
        except BaseException:
            stack.close()
            self._stack = self._server = self._conn = None
            raise

    def _connect(self, server: RunningCommand, path: Path) -> socket.socket:
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(str(path))
                return conn
            except (FileNotFoundError, ConnectionRefusedError):
                conn.close()
            if not server.running() or time.monotonic() > deadline:
                raise PoolUnavailable(
                    f"the worker pool's fork server did not start: {self._server_stderr()}",
                    hint=f"see {self.run_dir / 'server.stderr.txt'}; --cold runs each problem in its own process",
                )
            time.sleep(POLL_S)

    def _server_stderr(self) -> str:
        try:
            lines = (self.run_dir / "server.stderr.txt").read_text(errors="replace").strip().splitlines()
        except FileNotFoundError:
            lines = []
        return one_line(lines[-1], 300) if lines else "no output"

    def close(self) -> None:
        """Stop the server; every run still going is killed with it."""
        with self._lock:
            self._closed = True
            self._close()

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.sendall(encode(Shutdown()))
            except OSError:
                pass
            server = self._server
            deadline = time.monotonic() + 5.0
            while server is not None and server.running() and time.monotonic() < deadline:
                time.sleep(POLL_S)
            self._conn.close()
        if self._stack is not None:
            self._stack.close()  # kills the server's process group whatever state it is in
        self._lost |= set(self._pending_pids())
        self._stack = self._server = self._conn = None
        self.ready = None

    def _pending_pids(self) -> list[int]:
        return [r.pid for r in self._replies.values() if isinstance(r, Launched) and r.pid not in self._exited]

    # -- messages ------------------------------------------------------------------------------

    def _pump(self, wait_s: float) -> None:
        """Read what the server sent (waiting up to ``wait_s``); a dead server loses its runs. Lock held."""
        conn = self._conn
        if conn is None:
            return
        readable, _, _ = select.select([conn], [], [], wait_s)
        data = b""
        if readable:
            try:
                data = conn.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                self._close()  # the server is gone, and its children with it (PR_SET_PDEATHSIG)
                return
        self._inbox += data
        *lines, self._inbox = self._inbox.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            message = MESSAGE.validate_json(line)
            if isinstance(message, Ready):
                self.ready = message
            elif isinstance(message, Launched | Refused):
                self._replies[message.id] = message
            elif isinstance(message, Exited):
                self._exited[message.pid] = message.returncode

    def _wait(self, done: Callable[[], bool], timeout_s: float, *, what: str) -> None:
        """Pump until ``done()``; lock held."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if self._conn is None or time.monotonic() > deadline:
                raise PoolUnavailable(
                    f"the worker pool's fork server did not answer ({what}): {self._server_stderr()}",
                    hint=f"see {self.run_dir / 'server.stderr.txt'}",
                )
            self._pump(POLL_S)

    def exit_status(self, pid: int) -> int | None:
        """The exit status of run ``pid``, once it has ended (``-SIGKILL`` when it died with its server)."""
        with self._lock:
            if pid not in self._exited and pid not in self._lost:
                self._pump(0.0)
            if pid in self._lost:
                return -int(signal.SIGKILL)
            return self._exited.get(pid)

    def kill(self, pid: int) -> None:
        """Kill run ``pid``'s process group and wait until the server has reaped it."""
        with self._lock:
            if pid in self._exited or pid in self._lost or self._conn is None:
                return
            try:
                self._conn.sendall(encode(Kill(pid=pid)))
            except OSError:
                self._close()
                return
            deadline = time.monotonic() + KILL_WAIT_S
            while pid not in self._exited and self._conn is not None and time.monotonic() < deadline:
                self._pump(POLL_S)
            if pid not in self._exited:
                self._lost.add(pid)

    # -- runs ----------------------------------------------------------------------------------

    def _ensure_server(self) -> None:
        """A running server: started again when it died (counted in ``restarts``). Lock held."""
        if self._closed:
            raise PoolUnavailable("the worker pool is closed")
        if self._server is not None and self._conn is not None and self._server.running():
            return
        if self._stack is not None:
            self._close()
        if self._opened:
            if self.restarts >= MAX_RESTARTS:
                raise PoolUnavailable(
                    f"the worker pool's fork server died {self.restarts + 1} times: {self._server_stderr()}",
                    hint="--cold runs each problem in its own process",
                )
            self.restarts += 1
        self._open()

    def _launch(
        self, entry: str, args: list[str], *, env: Mapping[str, str], cwd: Path | None, out: Path, err: Path
    ) -> Launched:
        with self._lock:
            self._ensure_server()
            for path in (out, err):
                path.write_bytes(b"")
            launch_id = next(self._ids)
            message = Launch(
                id=launch_id,
                entry=entry,
                args=args,
                env=child_env(env),
                cwd=str(cwd) if cwd is not None else None,
                stdout_path=str(out),
                stderr_path=str(err),
            )
            try:
                assert self._conn is not None
                self._conn.sendall(encode(message))
            except OSError:  # the server died since the check: start it again, once, for this run
                self._close()
                self._ensure_server()
                assert self._conn is not None
                self._conn.sendall(encode(message))
            self._wait(lambda: launch_id in self._replies, self.startup_timeout_s, what="a launch")
            reply = self._replies[launch_id]
        if isinstance(reply, Refused):
            raise PoolUnavailable(f"the worker pool refused a run: {reply.reason}")
        self.launches += 1
        self.warm_launches += int(reply.warm)
        return reply

    @contextmanager
    def start(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        stdout_path: Path,
        stderr_path: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Iterator[WatchedWorker]:
        """Start ``argv`` as a child of the fork server (or the ordinary way when it has no entry point for
        it); the same contract as :func:`kernelopt.proc.start_command`: leaving the block kills the run's
        process group."""
        entry = warm_entry(argv)
        if entry is None:
            with start_command(
                argv, timeout_s=timeout_s, stdout_path=stdout_path, stderr_path=stderr_path, cwd=cwd, env=env
            ) as command:
                yield command
            return
        started = time.monotonic()
        reply = self._launch(
            entry[0], entry[1], env=self.env if env is None else env, cwd=cwd, out=stdout_path, err=stderr_path
        )
        worker = PooledWorker(self, reply.pid, started_at=started, timeout_s=timeout_s, warm=reply.warm)
        try:
            yield worker
        finally:
            worker.kill()
