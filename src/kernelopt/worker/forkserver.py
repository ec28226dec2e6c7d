"""The fork server: ``python -m kernelopt.worker.forkserver SOCKET [--warm DEVICE]``.

Used by ``kernelopt batch`` (its pool of workers) and by every run on the CPU in any kernelopt process
(:func:`kernelopt.worker.forkpool.shared_cpu_pool`: the harness's check and timing runs, the tuning
engine's and the tunables' ``kernelopt.child`` workers).

A process that has imported torch, triton and the harness worker's modules, but never initialized CUDA,
forks one fresh child per worker run, so a run pays a ``fork`` instead of a Python start and a torch
import. It is started through :func:`kernelopt.proc.start_command` (own process group, secrets dropped,
a time limit) by :class:`kernelopt.worker.forkpool.ForkPool`; its children are ``os.fork`` copies of it,
the one documented exception to "every process through kernelopt.proc": they run our own entry points
(:data:`ENTRY_POINTS`), never an external program, and each leads a process group of its own.

Each child is as isolated as a fresh worker: its own session and process group (the parent kills the
group on a timeout), the job's environment in place of the server's (the process environment replaced, Python's
start-up flags applied by hand: ``PYTHONFAULTHANDLER``, ``PYTHONDONTWRITEBYTECODE``, ``MALLOC_PERTURB_``
through ``mallopt``; ``TMPDIR`` read again; the job's folder first on ``sys.path``), stdout and stderr in the
job's files, fresh random seeds, what it started killed when it ends, and it ends with the server
(``PR_SET_PDEATHSIG``), which ends with the process that started it. A crash or hang takes only the child.
A ``kernelopt.child`` worker's pipe ends come with its :class:`Launch` (``SCM_RIGHTS``, :attr:`Launch.fds`).

One child is kept ready ahead (a *spare*): forked, and on a GPU machine with CUDA and Triton's driver
already initialized, while the previous run is still working; the next run starts in it. A run whose
environment differs from the spare's in a variable read at CUDA start (:data:`EARLY_VARIABLES`) gets a
fresh fork instead.

The parent and the server speak JSON lines over a Unix socket (one message each, :data:`MESSAGE`): the
server sends :class:`Ready`, then :class:`Launched` / :class:`Refused` for each :class:`Launch` and
:class:`Exited` when a child ends; the parent sends :class:`Launch`, :class:`Kill` and :class:`Shutdown`.
Nothing outside :mod:`kernelopt.worker.forkpool` depends on this module.
"""

from __future__ import annotations

import importlib
import os
import selectors
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from kernelopt.env import WORKER_FDS, inherited, replace_environment
from kernelopt.jsontext import dump_json, load_json
from kernelopt.proc import die_with_parent, exit_process, kill_descendants

#: The modules the server imports before it forks anything (a missing one is skipped and reported).
PRELOAD = (
    "numpy",
    # numpy 2 loads numpy.random at its first use: each child's reseeding (_python_flags) imported it afresh
    "numpy.random",
    "torch",
    "triton",
    "kernelopt.harness.worker",
    "kernelopt.harness.loader",
    "kernelopt.harness.compare",
    "kernelopt.harness.inputs",
    "kernelopt.harness.timers",
    "kernelopt.child",
    "kernelopt.worker.server",
    "kernelopt.tuning.bench_worker",
    "kernelopt.tunables.autotune_worker",
    # Triton's native argument specialization imports Gluon's layouts at a process's first kernel launch (Triton
    # 3.6): 0.04 CPU-s in every child that launches a kernel, once here instead (suite29 s101)
    "triton.experimental.gluon",
)
#: Variables read when CUDA starts: a run that sets them otherwise than the server does gets a fresh
#: child, never the spare that already started CUDA.
EARLY_VARIABLES = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "CUDA_MODULE_LOADING",
    "CUDA_LAUNCH_BLOCKING",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
)


def _early(env: Mapping[str, str]) -> dict[str, str | None]:
    """The :data:`EARLY_VARIABLES` of ``env`` (None where unset)."""
    return {k: env.get(k) for k in EARLY_VARIABLES}


#: Our choice: after this many spares that died before a run reached them, the server forks plain children.
MAX_SPARE_FAILURES = 3
POLL_S = 0.02
MAX_FDS = 16
M_PERTURB = -6  # glibc mallopt parameter behind MALLOC_PERTURB_


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Ready(_Message):
    """The server is up. ``missing``: preload modules that could not be imported; ``threads``: its thread
    count after the imports (a fork copies only the forking thread)."""

    kind: Literal["ready"] = "ready"
    pid: int
    preloaded: list[str]
    missing: list[str]
    preload_s: float
    cuda_initialized: bool
    threads: int


class Launch(_Message):
    """Run the entry point ``entry`` (a key of :data:`ENTRY_POINTS`) with ``args`` in a fresh child."""

    kind: Literal["launch"] = "launch"
    id: int
    entry: str
    args: list[str]
    env: dict[str, str]
    cwd: str | None = None
    stdout_path: str
    stderr_path: str
    fds: int = 0
    """How many descriptors came with this message (``SCM_RIGHTS``): a ``kernelopt.child`` worker's ends of
    its pipe pair, named to the child in ``KERNELOPT_WORKER_FDS`` (``r,w``). Such a run gets a fresh fork,
    never the spare (forked before the descriptors came)."""


class Launched(_Message):
    """Launch ``id`` runs as process ``pid`` (which leads its own process group); ``warm``: in the spare."""

    kind: Literal["launched"] = "launched"
    id: int
    pid: int
    warm: bool


class Refused(_Message):
    kind: Literal["refused"] = "refused"
    id: int
    reason: str


class Kill(_Message):
    """Kill the process group of child ``pid`` (nothing when it has already ended)."""

    kind: Literal["kill"] = "kill"
    pid: int


class Exited(_Message):
    """Child ``pid`` ended; ``returncode`` as :class:`subprocess.Popen` gives it (negative: the signal)."""

    kind: Literal["exited"] = "exited"
    pid: int
    returncode: int


class Shutdown(_Message):
    kind: Literal["shutdown"] = "shutdown"


MESSAGE: TypeAdapter[Ready | Launch | Launched | Refused | Kill | Exited | Shutdown] = TypeAdapter(
    Annotated[Ready | Launch | Launched | Refused | Kill | Exited | Shutdown, Field(discriminator="kind")]
)


def encode(message: _Message) -> bytes:
    return dump_json(message).encode() + b"\n"


def _main_of(module: str) -> Callable[[list[str]], int]:
    """``main(argv) -> int`` of an entry module, imported by name (the server preloads it: no static import
    of a higher layer here, as ``python -m MODULE`` has none)."""

    def run(args: list[str]) -> int:
        return int(importlib.import_module(module).main(args))

    return run


#: What a child may run: ``python -m MODULE ARGS`` of these modules becomes ``ENTRY_POINTS[MODULE](ARGS)``.
ENTRY_POINTS: dict[str, Callable[[list[str]], int]] = {
    name: _main_of(name) for name in ("kernelopt.harness.worker", "kernelopt.child", "kernelopt.harness.infer")
}


# -- in a child -----------------------------------------------------------------------------------


def _redirect(fd: int, path: str) -> None:
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    os.dup2(target, fd)
    os.close(target)


def _python_flags(env: dict[str, str]) -> None:
    """What the interpreter would have done at start-up with the job's environment."""
    import faulthandler
    import random

    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    if env.get("PYTHONFAULTHANDLER"):
        faulthandler.enable(file=sys.stderr, all_threads=True)
    perturb = env.get("MALLOC_PERTURB_", "")
    if sys.platform.startswith("linux"):  # the job's value, or none (0) where the job sets none
        import ctypes

        ctypes.CDLL(None).mallopt(M_PERTURB, int(perturb) if perturb.isdigit() else 0)
    random.seed()  # a fresh process seeds from the OS; a fork would repeat the server's sequence
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def run_launch(launch: Launch, fds: list[int] | None = None) -> NoReturn:
    """Become the job: its files, folder, environment and flags; run its entry point; exit with its code.
    ``fds``: the descriptors that came with it, named in ``KERNELOPT_WORKER_FDS``."""
    code = 1
    try:
        _redirect(1, launch.stdout_path)
        _redirect(2, launch.stderr_path)
        for stream in (sys.stdout, sys.stderr):
            stream.reconfigure(line_buffering=True, write_through=True)  # type: ignore[union-attr]
        if launch.cwd:
            os.chdir(launch.cwd)
        if sys.path and not sys.flags.safe_path:
            sys.path[0] = os.getcwd()  # `python -m` puts the folder it starts in first on the path
        env = dict(launch.env)
        if fds:
            for fd in fds:
                os.set_inheritable(fd, True)  # as Popen's pass_fds leaves them
            env[WORKER_FDS] = ",".join(str(fd) for fd in fds)
        replace_environment(env)
        tempfile.tempdir = None  # read TMPDIR again (the server may have asked tempfile already)
        _python_flags(launch.env)
        sys.argv = [launch.entry, *launch.args]
        code = ENTRY_POINTS[launch.entry](list(launch.args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # the child's last act: report whatever it was on its stderr and exit 1
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        # what a fresh worker's exit does (kernelopt.proc.adopt_descendants' atexit hook, which os._exit
        # skips): nothing the run started outlives it
        kill_descendants()
        os._exit(code)


def _warm(device: str) -> None:
    """Start CUDA and Triton's driver in a spare, so the run that gets it does not wait for them."""
    if device == "cpu":
        return
    import torch

    try:
        if not torch.cuda.is_available():  # safe here: this is a child, never the server
            return
        torch.empty(1, device="cuda")  # creates the context
        from triton.runtime import driver

        driver.active.get_current_device()  # builds and loads Triton's CUDA helper module once
    except Exception as exc:  # a warm-up only: the run that gets this spare meets the real error itself
        sys.stderr.write(f"kernelopt forkserver: spare {os.getpid()} not warmed: {type(exc).__name__}: {exc}\n")


def _read_line(fd: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 65536)
        if not chunk:
            return b""
        data += chunk
    return data


# -- the server -----------------------------------------------------------------------------------


@dataclass
class _Spare:
    pid: int
    job_fd: int
    early: dict[str, str | None]


class Server:
    """The server's state: its connection, its children, its spare."""

    def __init__(self, conn: socket.socket, *, warm_device: str, spares: bool) -> None:
        self.conn = conn
        self.warm_device = warm_device
        self.spares = spares
        self.children: set[int] = set()
        self.spare: _Spare | None = None
        self.spare_failures = 0
        self.inbox = b""
        self.fd_inbox: list[int] = []  # descriptors received, not yet handed to their Launch

    def send(self, message: _Message) -> None:
        self.conn.sendall(encode(message))

    def _fork(self) -> int:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            os.setsid()  # its own session and process group: the parent kills the group
            self.conn.close()
            for fd in self.fd_inbox:  # another run's pipe ends: its parent must see them close
                os.close(fd)
            if self.spare is not None:
                os.close(self.spare.job_fd)
            die_with_parent()
        return pid

    def _fork_spare(self) -> None:
        read_fd, write_fd = os.pipe()
        pid = self._fork()
        if pid == 0:
            os.close(write_fd)
            _warm(self.warm_device)
            line = _read_line(read_fd)
            if not line:
                os._exit(0)  # the server went away before giving it a run
            message = load_json(MESSAGE, line)
            assert isinstance(message, Launch)
            run_launch(message)
        os.close(read_fd)
        self.spare = _Spare(pid, write_fd, _early(inherited()))

    def launch(self, message: Launch) -> None:
        fds = self.fd_inbox[: message.fds]
        del self.fd_inbox[: message.fds]
        if message.entry not in ENTRY_POINTS:
            for fd in fds:
                os.close(fd)
            self.send(Refused(id=message.id, reason=f"no entry point {message.entry!r} in the fork server"))
            return
        spare = self.spare
        if fds:
            pid, warm = self._fork(), False
            if pid == 0:
                run_launch(message, fds)
            for fd in fds:
                os.close(fd)
        elif spare is not None and spare.early == _early(message.env):
            self.spare = None
            os.write(spare.job_fd, encode(message))
            os.close(spare.job_fd)
            pid, warm = spare.pid, True
        else:
            pid, warm = self._fork(), False
            if pid == 0:
                run_launch(message)
        self.children.add(pid)
        self.send(Launched(id=message.id, pid=pid, warm=warm))

    def kill(self, pid: int) -> None:
        if pid not in self.children:
            return  # already reaped: its Exited is on the way
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            os.kill(pid, signal.SIGKILL)

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            code = os.waitstatus_to_exitcode(status)
            if self.spare is not None and pid == self.spare.pid:
                os.close(self.spare.job_fd)
                self.spare = None
                self.spare_failures += 1
            elif pid in self.children:
                self.children.discard(pid)
                try:  # what it started and left behind, as proc.start_command does for a finished command
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                self.send(Exited(pid=pid, returncode=code))

    def refill(self) -> None:
        if self.spares and self.spare is None and self.spare_failures < MAX_SPARE_FAILURES:
            self._fork_spare()

    def handle(self, data: bytes) -> bool:
        """Apply the complete messages in ``data``; False when the parent asked the server to stop."""
        self.inbox += data
        *lines, self.inbox = self.inbox.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            message = load_json(MESSAGE, line)
            if isinstance(message, Launch):
                self.launch(message)
            elif isinstance(message, Kill):
                self.kill(message.pid)
            elif isinstance(message, Shutdown):
                return False
        return True

    def stop(self) -> None:
        """Kill every child and the spare, and reap them (nothing is sent: the parent may be gone)."""
        pids = set(self.children) | ({self.spare.pid} if self.spare else set())
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + 5.0
        while pids and time.monotonic() < deadline:
            for pid in list(pids):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    pids.discard(pid)
            time.sleep(POLL_S)
        self.children.clear()
        self.spare = None


def _preload() -> tuple[list[str], list[str]]:
    loaded, missing = [], []
    for name in PRELOAD:
        try:
            __import__(name)
            loaded.append(name)
        except ImportError:
            missing.append(name)
    return loaded, missing


#: A server's socket argument that starts so names a Linux abstract socket (an argument cannot carry its NUL).
ABSTRACT = "@"


def socket_address(text: str) -> str:
    """The ``AF_UNIX`` address of a server's socket argument: a path as it is; ``@NAME`` the abstract socket ``NAME``
    (a leading NUL: no file, so no folder's length counts against ``sun_path``'s 107 bytes)."""
    return "\0" + text[len(ABSTRACT) :] if text.startswith(ABSTRACT) else text


def _own_user(conn: socket.socket) -> bool:
    """Whether the peer of ``conn`` runs as this process's user (``SO_PEERCRED``; true where it cannot be read):
    an abstract socket has no folder's permissions to keep other users out."""
    import struct

    cred = getattr(socket, "SO_PEERCRED", None)
    if cred is None:
        return True
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, cred, struct.calcsize("3i")))
    return bool(uid == os.getuid())


def serve(socket_path: str, *, warm_device: str, spares: bool, accept_timeout_s: float = 120.0) -> int:
    """Preload, accept the parent's connection on ``socket_path`` (:func:`socket_address`; a peer of another user
    is turned away), then serve until told to stop or the parent goes away; returns the exit status."""
    die_with_parent()
    start = time.monotonic()
    loaded, missing = _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_address(socket_path))
    listener.listen(1)
    deadline = time.monotonic() + accept_timeout_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:  # a peer of another user took the time: as when none came
                return 1
            listener.settimeout(left)
            conn, _ = listener.accept()
            if _own_user(conn):
                break
            conn.close()
    except TimeoutError:
        return 1
    finally:
        listener.close()
    torch = sys.modules.get("torch")
    server = Server(conn, warm_device=warm_device, spares=spares)
    server.send(
        Ready(
            pid=os.getpid(),
            preloaded=loaded,
            missing=missing,
            preload_s=round(time.monotonic() - start, 3),
            cuda_initialized=bool(torch is not None and torch.cuda.is_initialized()),
            threads=len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1,
        )
    )
    selector = selectors.DefaultSelector()
    selector.register(conn, selectors.EVENT_READ)
    try:
        going = True
        while going:
            server.refill()
            if selector.select(timeout=POLL_S):
                data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, MAX_FDS)
                server.fd_inbox += fds
                going = bool(data) and server.handle(data)
            server.reap()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the parent is gone
    finally:
        server.stop()
        conn.close()
    return 0


def main(argv: list[str]) -> int:
    """``python -m kernelopt.worker.forkserver SOCKET [--warm cuda|cpu] [--no-spare]``."""
    if not argv or argv[0].startswith("-"):
        sys.stderr.write("usage: python -m kernelopt.worker.forkserver SOCKET [--warm cuda|cpu] [--no-spare]\n")
        return 2
    warm = argv[argv.index("--warm") + 1] if "--warm" in argv else "cuda"
    return serve(argv[0], warm_device=warm, spares="--no-spare" not in argv)


if __name__ == "__main__":
    exit_process(main(sys.argv[1:]))
