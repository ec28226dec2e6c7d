"""A pool of pre-started workers: the one ``kernelopt batch`` validates problems with, and each process's
own for its runs on the CPU (:func:`shared_cpu_pool`).

:class:`ForkPool` starts the fork server (:mod:`kernelopt.worker.forkserver`) through
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

import atexit
import itertools
import os
import queue
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TypeVar, cast

from kernelopt.env import inherited
from kernelopt.errors import EnvironmentProblem
from kernelopt.fileio import owned_temp_dir
from kernelopt.jsontext import load_json
from kernelopt.oneline import one_line
from kernelopt.proc import (
    COMMAND_ID,
    CommandResult,
    LimitedCommand,
    RunningCommand,
    child_env,
    kill_strays,
    start_command,
)
from kernelopt.worker.environment import worker_env
from kernelopt.worker.forkserver import (
    ABSTRACT,
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
    socket_address,
)

T = TypeVar("T")
SERVER_MODULE = "kernelopt.worker.forkserver"
POLL_S = 0.02
#: Our choice: a killed child (SIGKILL to its group) is reaped within milliseconds; past this it is given up.
KILL_WAIT_S = 10.0
#: Our choice: how often a server that keeps dying is started again before the batch stops with an error.
MAX_RESTARTS = 3


#: Bytes of an AF_UNIX socket path on Linux (``sun_path``, less its terminating NUL).
SOCKET_PATH_MAX = 107
#: What a pool's socket adds to the temporary folder: ``/kernelopt-pool-<pid>-<random>/s``.
SOCKET_SUFFIX_BYTES = 40


def socket_fits() -> bool:
    """Whether a pool's socket file fits under the temporary folder. A coding agent's own scratch TMPDIR inside a
    deep folder does not ("AF_UNIX path too long"), nor a TMPDIR of 27 characters and more under pytest-xdist's
    folders: the pool then listens on an abstract socket (:func:`server_socket`)."""
    return len(os.fsencode(tempfile.gettempdir())) + SOCKET_SUFFIX_BYTES <= SOCKET_PATH_MAX


def server_socket() -> tuple[str, Path | None]:
    """The socket argument of a new pool's server and the folder that holds its file (``None``: none).

    A file ``s`` in a new 0700 folder of the temporary folder where its path fits ``sun_path``; else, on Linux, an
    abstract socket ``@kernelopt-pool-<pid>-<random>`` (:func:`~kernelopt.worker.forkserver.socket_address`: no
    file, so the temporary folder's length does not count; the server takes only a peer of its own user), whatever
    TMPDIR is (a short folder elsewhere, /tmp, is read-only inside Codex's sandbox).

    Raises:
        PoolUnavailable: the path does not fit and the system has no abstract sockets; its callers run each child in
            a fresh process, as they do where a sandbox refuses the socket.
    """
    if socket_fits():
        folder = owned_temp_dir("pool")
        return str(folder / "s"), folder
    if not sys.platform.startswith("linux"):
        raise PoolUnavailable(
            f"the temporary folder's path is too long for the worker pool's socket: {tempfile.gettempdir()}"
        )
    return f"{ABSTRACT}kernelopt-pool-{os.getpid()}-{uuid.uuid4().hex}", None


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

    def __init__(self, pool: ForkPool, pid: int, *, started_at: float, timeout_s: float, warm: bool) -> None:
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


class ForkedWorker:
    """A long-lived worker forked by the fork server, with :class:`kernelopt.proc.WorkerCommand`'s interface.

    Attributes:
        argv: the command it stands for.
        pid: the child's process id (it leads its own process group).
        log_path: the file its standard output and error are appended to.
    """

    def __init__(self, pool: ForkPool, pid: int, argv: tuple[str, ...], log_path: Path, token: str) -> None:
        self._pool = pool
        self.pid = pid
        self.argv = argv
        self.log_path = log_path
        self._token = token

    def poll(self) -> int | None:
        """The exit status (negative for a signal), or ``None`` while it runs."""
        return self._pool.exit_status(self.pid)

    def wait(self, timeout_s: float) -> int | None:
        """Wait up to ``timeout_s`` seconds for it to exit; its exit status, or ``None`` if it still runs."""
        deadline = time.monotonic() + timeout_s
        while (code := self.poll()) is None and time.monotonic() < deadline:
            time.sleep(POLL_S)
        return code

    def kill(self) -> None:
        """Kill its whole process group and what it started in other sessions; harmless once it has exited."""
        self._pool.kill(self.pid)
        kill_strays(self._token)

    @property
    def returncode(self) -> int | None:
        return self.poll()


class ForkPool:
    """A fork server with torch and triton imported, and the runs it forks.

    Args:
        run_dir: folder for the server's stdout.txt / stderr.txt.
        warm_device: ``cpu`` (spares start nothing) or anything else (spares start CUDA when present).
        lifetime_s: the server's wall-clock limit (the batch's whole length at most).
        startup_timeout_s: how long the server may take to import torch and answer.
        spare: keep one child forked and warmed ahead.
        env: the environment the server and the runs start from (default: this process's).
        keeper: start the server from this process's keeper thread (a thread that lives as long as the
            process), not from the calling thread: the server ends with the thread that started it
            (``PR_SET_PDEATHSIG``), so a pool used from threads that come and go needs this.

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
        keeper: bool = False,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.keeper = keeper
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

    def __enter__(self) -> ForkPool:
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
        sock_path, sock_dir = server_socket()
        stack = ExitStack()
        if sock_dir is not None:
            stack.callback(shutil.rmtree, sock_dir, True)
        argv = [sys.executable, "-m", SERVER_MODULE, str(sock_path), "--warm", self.warm_device]
        if not self.spare:
            argv.append("--no-spare")

        def start() -> RunningCommand:
            return stack.enter_context(
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

        server = _on_keeper(start) if self.keeper else start()
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

    def _connect(self, server: RunningCommand, path: str) -> socket.socket:
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(socket_address(path))
                return conn
            except (FileNotFoundError, ConnectionRefusedError):
                conn.close()
            except PermissionError as exc:  # a sandbox that forbids sockets (Codex's workspace-write)
                conn.close()
                raise PoolUnavailable(f"the worker pool's fork server cannot be reached: {exc}") from None
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
            self._receive(load_json(MESSAGE, line))

    def _receive(self, message: object) -> None:
        """Apply one message of the server. Lock held."""
        if isinstance(message, Ready):
            self.ready = message
        elif isinstance(message, Launched | Refused):
            if isinstance(message, Launched):
                # the kernel reuses process ids (pid_max is 32768 here): a new run with the id of one that
                # ended earlier in this pool is not that one, and has not exited (issue 34: a PASS read
                # as "the worker exited with code 0 without a result" at its start)
                self._exited.pop(message.pid, None)
                self._lost.discard(message.pid)
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
        self,
        entry: str,
        args: list[str],
        *,
        env: Mapping[str, str],
        cwd: Path | None,
        out: Path,
        err: Path,
        token: str,
        fds: Sequence[int] = (),
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
                env=child_env(env) | {COMMAND_ID: token},
                cwd=str(cwd) if cwd is not None else None,
                stdout_path=str(out),
                stderr_path=str(err),
                fds=len(fds),
            )
            try:
                assert self._conn is not None
                self._send(self._conn, encode(message), fds)
            except OSError:  # the server died since the check: start it again, once, for this run
                self._close()
                self._ensure_server()
                assert self._conn is not None
                self._send(self._conn, encode(message), fds)
            self._wait(lambda: launch_id in self._replies, self.startup_timeout_s, what="a launch")
            reply = self._replies[launch_id]
        if isinstance(reply, Refused):
            raise PoolUnavailable(f"the worker pool refused a run: {reply.reason}")
        self.launches += 1
        self.warm_launches += int(reply.warm)
        return reply

    def _launch_entry(
        self,
        entry: tuple[str, list[str]],
        *,
        env: Mapping[str, str] | None,
        cwd: Path | None,
        out: Path,
        err: Path,
        fds: Sequence[int] = (),
    ) -> tuple[Launched, str]:
        """Launch ``entry`` (:func:`warm_entry`'s answer) under a new command token, in ``env`` (default: the
        pool's); the reply and the token (what the run starts in other sessions is found by it)."""
        token = uuid.uuid4().hex
        reply = self._launch(
            entry[0], entry[1], env=self.env if env is None else env, cwd=cwd, out=out, err=err, token=token, fds=fds
        )
        return reply, token

    @staticmethod
    def _send(conn: socket.socket, data: bytes, fds: Sequence[int]) -> None:
        if not fds:
            conn.sendall(data)
            return
        sent = socket.send_fds(conn, [data], list(fds))  # the descriptors ride with the first bytes
        if sent < len(data):
            conn.sendall(data[sent:])

    def start_worker(
        self,
        argv: Sequence[str],
        *,
        log_path: Path,
        pass_fds: Sequence[int],
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ForkedWorker | None:
        """Start a long-lived ``kernelopt.child`` worker (``argv`` as :func:`kernelopt.proc.start_worker` takes
        it) as a child of the fork server, its pipe ends ``pass_fds`` handed over with the launch; ``None``
        when the server has no entry point for ``argv`` (start it the ordinary way)."""
        entry = warm_entry(argv)
        if entry is None:
            return None
        log_path.parent.mkdir(parents=True, exist_ok=True)
        reply, token = self._launch_entry(entry, env=env, cwd=cwd, out=log_path, err=log_path, fds=pass_fds)
        return ForkedWorker(self, reply.pid, tuple(argv), log_path, token)

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
    ) -> Iterator[PooledWorker | RunningCommand]:
        """Start ``argv`` as a child of the fork server (or the ordinary way when it has no entry point for
        it); the same contract as :func:`kernelopt.proc.start_command`: leaving the block kills the run's
        process group, and whatever the run started in a session of its own (found by the
        ``KERNELOPT_COMMAND_ID`` token in its environment, :func:`kernelopt.proc.kill_strays`)."""
        entry = warm_entry(argv)
        if entry is None:
            with start_command(
                argv, timeout_s=timeout_s, stdout_path=stdout_path, stderr_path=stderr_path, cwd=cwd, env=env
            ) as command:
                yield command
            return
        started = time.monotonic()
        reply, token = self._launch_entry(entry, env=env, cwd=cwd, out=stdout_path, err=stderr_path)
        worker = PooledWorker(self, reply.pid, started_at=started, timeout_s=timeout_s, warm=reply.warm)
        try:
            yield worker
        finally:
            worker.kill()
            kill_strays(token)


# -- the process's own fork servers for CPU runs ----------------------------------------------------

#: Variables a run may set otherwise than its fork server was started with: nothing reads them while the
#: server imports torch and triton (kernelopt reads its own when a run needs them; the child applies
#: Python's start-up flags and ``MALLOC_PERTURB_`` itself, :func:`kernelopt.worker.forkserver.run_launch`;
#: the harness worker sets the build folders per version). ``PATH``: the preload looks at no file in a
#: ``PATH`` folder and runs no program (strace of the preload under ``TRITON_INTERPRET=1``, 2026-12-05), and
#: a run's programs are found in the run's own environment; ``MPLCONFIGDIR``: the preload imports no
#: matplotlib; ``TORCHINDUCTOR_CACHE_DIR``: the preload imports no inductor (checked 2026-12-06), and
#: ``torch._dynamo``'s import writes it into ``os.environ`` (a meta-device probe in the CLI's own process did,
#: and every later run got a second server: speed12, 2026-12-06); the coding agents' variables
#: (:data:`LATE_PREFIXES`, ``DISABLE_TELEMETRY``): no file of torch, triton or numpy names them. A run whose
#: environment differs from a server's in any other variable (``TRITON_INTERPRET``, ``OMP_NUM_THREADS``,
#: ``PYTHONPATH``, ...) gets a server of its own.
LATE_VARIABLES = frozenset(
    {
        "HOME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "PWD",
        "OLDPWD",
        "COLUMNS",
        "LINES",
        "MALLOC_PERTURB_",
        "PYTHONFAULTHANDLER",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "TEST_TIMEOUT_SEC",
        "TRITON_CACHE_DIR",
        "TORCH_EXTENSIONS_DIR",
        "TORCHINDUCTOR_CACHE_DIR",
        "PYTEST_CURRENT_TEST",
        "PATH",
        "MPLCONFIGDIR",
        "DISABLE_TELEMETRY",
    }
)
LATE_PREFIXES = ("KERNELOPT_", "GIT_", "ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_")
#: Our choice: at most this many servers per process (each holds torch imported: ~0.4 GB); the one used
#: least recently is stopped to make room.
MAX_SHARED = 2
SHARED_LIFETIME_S = 7 * 24 * 3600.0
"""A shared server lives as long as the process that started it (it dies with it: ``PR_SET_PDEATHSIG``)."""

_shared: dict[tuple[tuple[str, str], ...], ForkPool] = {}
_shared_lock = threading.Lock()
_shared_broken = False
_at_exit = False


_keeper_lock = threading.Lock()
_keeper: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] | None = None


def _keep(jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]]) -> None:
    while True:
        fn, done = jobs.get()
        try:
            done.set_result(fn())
        except BaseException as exc:
            done.set_exception(exc)


def _on_keeper(fn: Callable[[], T]) -> T:
    """``fn()`` run on this process's keeper thread (a daemon thread started at the first call, alive until
    the process ends), for starting processes that must not end with the calling thread."""
    global _keeper
    with _keeper_lock:
        if _keeper is None:
            _keeper = queue.SimpleQueue()
            threading.Thread(target=_keep, args=(_keeper,), name="kernelopt-forkpool-keeper", daemon=True).start()
        jobs = _keeper
    done: Future[object] = Future()
    jobs.put((fn, done))
    return cast(T, done.result())


def import_key(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The part of ``env`` that a fork server's imports may have read: every variable but the late ones."""
    return tuple(sorted((k, v) for k, v in env.items() if k not in LATE_VARIABLES and not k.startswith(LATE_PREFIXES)))


def server_key(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Which shared CPU server a run in ``env`` is forked from: the :func:`import_key` of the environment the
    server gets (``TRITON_INTERPRET=1`` whatever the run says; secret-looking variables dropped, as
    :func:`kernelopt.proc.start_command` drops them: the server never sees them), so that a run which leaves
    a default unset shares the server of one that sets it."""
    return import_key(child_env(worker_env(env, {}, device="cpu")))


def shared_cpu_pool(env: Mapping[str, str]) -> ForkPool | None:
    """This process's fork server for CPU runs in ``env`` (started at the first such run from the keeper
    thread, kept until the process ends), or ``None`` once a server failed to start (runs then start the
    ordinary way).

    Each run is still a fresh process: a child forked from a server that imported torch, triton and the
    harness worker's modules and has run nothing (:mod:`kernelopt.worker.forkserver`)."""
    global _shared_broken, _at_exit
    if _shared_broken:
        return None
    key = server_key(env)
    with _shared_lock:
        pool = _shared.pop(key, None)
        if pool is None:
            while len(_shared) >= MAX_SHARED:
                _stop(_shared.pop(next(iter(_shared))))
            pool = ForkPool(
                owned_temp_dir("forks"),
                warm_device="cpu",
                lifetime_s=SHARED_LIFETIME_S,
                keeper=True,
                env={k: v for k, v in env.items() if k != "MALLOC_PERTURB_"},  # a run's, never the server's
            )
            try:
                pool.open()
            except PoolUnavailable:
                _shared_broken = True
                shutil.rmtree(pool.run_dir, ignore_errors=True)
                return None
            if not _at_exit:
                _at_exit = True
                atexit.register(close_shared_pools)
        _shared[key] = pool  # the most recently used last
        return pool


def run_forked(argv: Sequence[str], *, timeout_s: float, env: Mapping[str, str]) -> CommandResult | None:
    """``argv`` (``python -m`` of a fork server's entry point) run to its end in a child forked from this
    process's fork server for CPU runs in ``env``, as :func:`kernelopt.proc.run_command` runs a command (its
    time limit, its group killed, its output captured and redacted); ``None`` when no such server can be had
    or it has no entry point for ``argv``: run it the ordinary way then."""
    if warm_entry(argv) is None:
        return None
    pool = shared_cpu_pool(env)
    if pool is None:
        return None
    folder = owned_temp_dir("run")
    out, err = folder / "stdout.txt", folder / "stderr.txt"
    started = time.monotonic()
    try:
        with pool.start(argv, timeout_s=timeout_s, stdout_path=out, stderr_path=err, env=env) as run:
            while run.running():
                time.sleep(POLL_S)
        return CommandResult.captured(
            argv,
            run.returncode,
            out.read_bytes() if out.is_file() else b"",
            err.read_bytes() if err.is_file() else b"",
            started=started,
            timed_out=run.timed_out,
        )
    except PoolUnavailable:
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def close_shared_pools() -> None:
    """Stop this process's shared fork servers and remove their folders (at exit, or when a test asks)."""
    with _shared_lock:
        while _shared:
            _stop(_shared.pop(next(iter(_shared))))


def _stop(pool: ForkPool) -> None:
    pool.close()
    shutil.rmtree(pool.run_dir, ignore_errors=True)
