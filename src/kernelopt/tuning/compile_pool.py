"""Compile candidates in parallel on the small shape, into one Triton cache per tuning session.

Parent side, :class:`CompilePool`: long-lived ``compile`` workers (``python -m kernelopt.child compile``),
as many as the CPU count, capped by the host's available memory (:data:`HOST_BYTES_PER_WORKER` each) and
by what the caller allows on the device, all with the session's ``TRITON_CACHE_DIR``. Each request is
one candidate file: the worker loads it and runs it once on the compile shape
(:func:`kernelopt.tuning.problem.compile_shape`), which compiles it into the shared cache, and checks
that run cheaply against the reference on the same shape. The full problem is never allocated here:
the bench worker's first call of the candidate then loads the compiled kernel from the cache.

Every compilation has a limit, adaptive as in Helion's autotuner: :class:`AdaptiveTimeout` starts at
its ceiling and, once compilations have been seen, is :data:`COMPILE_TIMEOUT_FACTOR` times the slowest
of them, between a floor and the ceiling. A compilation past it is ``COMPILE_TIMEOUT``: that worker's
process group is killed and the worker starts again for its next candidate. Results: the seconds
taken and ``OK``, ``COMPILE_ERROR``, ``COMPILE_TIMEOUT``, ``WRONG_RESULT`` (on the compile shape),
``RUN_ERROR``, ``OUT_OF_MEMORY`` or ``WORKER_CRASH``, each with its one-line reason.

Worker side, :class:`CompileService`: the handler of the ``compile`` service.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.env import TRITON_CACHE_DIR, build_folders, inherited
from kernelopt.tunables.list_model import ListScreen
from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.checks import (
    LoadedProblem,
    device_free_bytes,
    first_line,
    indexed_device,
    recover,
    run_candidate,
)
from kernelopt.tuning.problem import Problem
from kernelopt.vocabulary import Device
from kernelopt.worker.client import WorkerProcess
from kernelopt.worker.messages import USER_CODE, Failure, FailureKind, JsonObject, Reply, Service
from kernelopt.worker.pool import Answer, Job, WorkerPool
from kernelopt.worker.server import EventSink, SetupInfo, SetupRefused

COMPILE_TIMEOUT_FACTOR = 3.0
"""The adaptive limit is this many times the slowest compilation seen (our choice)."""
COMPILE_TIMEOUT_FLOOR_S = 15.0
"""The adaptive limit never goes below this: a Triton compile of a large tile takes seconds on a busy host."""
COMPILE_TIMEOUT_CEILING_S = 300.0
"""Nor above this (the harness's ``KERNELOPT_COMPILE_TIMEOUT_S`` default: a CUDA extension build)."""
HOST_BYTES_PER_WORKER = 2 * 1024**3
"""Host memory one compile worker may take (Python, torch, Triton, a CUDA context: about 1-2 GiB; our bound)."""
CACHE_DIR = "triton-cache"


class CompileKind(StrEnum):
    """The compile service's request kinds."""

    COMPILE = "compile"


class CompileInit(BaseModel):
    """The compile service's setup payload (``screen``: as :class:`~kernelopt.tuning.bench_worker.BenchInit`'s;
    ``avoid``: labels of ``SHAPES`` entries never compiled on, :meth:`~kernelopt.tuning.problem.Problem.
    compile_shape`)."""

    model_config = ConfigDict(extra="forbid")

    problem: Problem
    device: str | None = None
    screen: ListScreen | None = None
    avoid: list[str] = Field(default_factory=list)


class CompileRequest(BaseModel):
    """Compile (and run once on the compile shape) one candidate file."""

    model_config = ConfigDict(extra="forbid")

    path: str


class CompileReply(BaseModel):
    """How the compilation of one candidate ended.

    Attributes:
        outcome: ``OK`` or why not; reason: one line for a failure.
        compile_s: seconds importing the file and running it once on the compile shape (compilation included).
        restart: the worker's process is unusable after it (a sticky CUDA error).
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    outcome: Outcome
    reason: str | None = None
    compile_s: float | None = Field(default=None, ge=0)
    restart: bool = False


class CompileService:
    """The compile service's handler: the problem on its compile shape, built once per process."""

    def __init__(self) -> None:
        self.loaded: LoadedProblem | None = None

    def setup(self, payload: JsonObject, events: EventSink) -> SetupInfo:
        import torch

        from kernelopt.harness.worker import DeviceUnavailable, resolve_device

        init = CompileInit.model_validate(payload)
        try:
            device = resolve_device(init.device or init.problem.device)
        except DeviceUnavailable as exc:
            raise SetupRefused(FailureKind.SETUP_FAILED, str(exc)) from None
        device = indexed_device(device)
        if device.startswith("cuda"):
            torch.cuda.set_device(torch.device(device))
        try:
            loaded = LoadedProblem.load(init.problem, device, watch=lambda where: events.emit(USER_CODE, where=where))
            shape = init.problem.compile_shape(loaded.shapes, init.avoid)
            loaded.build(shape)
        except SystemExit as exc:  # sys.exit in reference.py is its fault, never this worker's own exit
            raise SetupRefused(
                FailureKind.BAD_INPUT, f"reference.py called sys.exit({exc.code!r}) while the problem was built"
            ) from None
        except Exception as exc:  # reference.py fails on the compile shape: bad input
            raise SetupRefused(FailureKind.BAD_INPUT, f"reference.py on the compile shape: {first_line(exc)}") from None
        loaded.screen = init.screen
        loaded.watch = None
        self.loaded = loaded
        return SetupInfo(device=device, info={"shape": shape.label()})

    def handle(self, kind: str, payload: JsonObject, events: EventSink) -> JsonObject:
        if kind != CompileKind.COMPILE:
            raise ValueError(f"the compile service has no request kind {kind!r}")
        loaded = self.loaded
        assert loaded is not None
        path = Path(CompileRequest.model_validate(payload).path)
        candidate, verdict = run_candidate(loaded, path)
        if candidate is not None:
            candidate.release()
        else:
            recover(loaded, verdict)
        reason = verdict.reason
        if verdict.outcome is Outcome.WRONG_RESULT:
            reason = f"on the compile shape ({loaded.shape.label()}): {reason}"
        spent = [s for s in (verdict.load_s, verdict.first_call_s) if s is not None]
        reply = CompileReply(
            path=str(path), outcome=verdict.outcome, reason=reason, compile_s=sum(spent) if spent else None
        )
        reply.restart = verdict.restart
        return reply.model_dump(mode="json")

    def close(self) -> None:
        self.loaded = None


@dataclass
class AdaptiveTimeout:
    """The limit of the next compilation: the ceiling until one was seen, then ``factor`` x the slowest seen,
    between ``floor_s`` and ``ceiling_s``."""

    floor_s: float = COMPILE_TIMEOUT_FLOOR_S
    ceiling_s: float = COMPILE_TIMEOUT_CEILING_S
    factor: float = COMPILE_TIMEOUT_FACTOR
    seen_s: list[float] = field(default_factory=list)

    def current(self) -> float:
        if not self.seen_s:
            return self.ceiling_s
        return min(self.ceiling_s, max(self.floor_s, self.factor * max(self.seen_s)))

    def observe(self, seconds: float) -> None:
        self.seen_s.append(seconds)


class CompileSettings(BaseModel):
    """How many compile workers and how long a compilation may take.

    Attributes:
        workers: compile workers at most (``None``: the CPU count); capped by host memory and the batch.
        timeout_floor_s, timeout_ceiling_s, timeout_factor: the :class:`AdaptiveTimeout`.
        startup_timeout_s: limit for a worker's start and setup.
    """

    model_config = ConfigDict(extra="forbid")

    workers: int | None = Field(default=None, ge=1)
    timeout_floor_s: float = Field(default=COMPILE_TIMEOUT_FLOOR_S, gt=0)
    timeout_ceiling_s: float = Field(default=COMPILE_TIMEOUT_CEILING_S, gt=0)
    timeout_factor: float = Field(default=COMPILE_TIMEOUT_FACTOR, gt=0)
    startup_timeout_s: float = Field(default=120.0, gt=0)


@dataclass
class CompileResult:
    """One candidate's compilation: how it ended, its one-line reason, the seconds it took."""

    path: Path
    outcome: Outcome
    reason: str | None = None
    compile_s: float | None = None


def worker_cap(
    requested: int | None, *, cpu_count: int | None, available_bytes: int | None, device_cap: int | None
) -> int:
    """How many compile workers to run: ``requested`` (default the CPU count), capped by the host's available
    memory (:data:`HOST_BYTES_PER_WORKER` each) and by ``device_cap``; at least 1."""
    n = requested if requested is not None else (cpu_count or 1)
    if available_bytes is not None:
        n = min(n, available_bytes // HOST_BYTES_PER_WORKER)
    if device_cap is not None:
        n = min(n, device_cap)
    return max(1, n)


class CompilePool:
    """Compile workers of one tuning session, started on the first batch and grown with larger batches.

    Args:
        problem: the problem (the workers build its compile shape).
        session_dir: the session's folder: the shared Triton cache (``triton-cache/``) and the logs.
        device: the device the workers compile and run on (default the problem's).
        settings: worker count and limits.
        env: the workers' environment (default: this process's); ``TRITON_CACHE_DIR`` is set in it.
        device_cap: the most workers the device has room for (the caller measured it), ``None``: no cap.
        screen: the tuned autotune list's own filters, applied to each candidate (:mod:`kernelopt.tuning.list_screen`).
        avoid: labels of ``SHAPES`` entries the workers never compile on (entries the session set aside).
    """

    def __init__(
        self,
        problem: Problem,
        *,
        session_dir: Path,
        device: str | None = None,
        settings: CompileSettings | None = None,
        env: Mapping[str, str] | None = None,
        device_cap: int | None = None,
        screen: ListScreen | None = None,
        avoid: Collection[str] = (),
    ) -> None:
        self.problem = problem
        self.screen = screen
        self.avoid = sorted(avoid)
        self.session_dir = Path(session_dir)
        self.device = device or problem.device
        self.settings = settings or CompileSettings()
        self.timeout = AdaptiveTimeout(
            self.settings.timeout_floor_s, self.settings.timeout_ceiling_s, self.settings.timeout_factor
        )
        self.env = shared_cache_env(inherited() if env is None else env, self.session_dir)
        self.cap = worker_cap(
            self.settings.workers,
            cpu_count=os.cpu_count(),
            available_bytes=device_free_bytes("cpu"),
            device_cap=device_cap,
        )
        self._pool: WorkerPool | None = None
        self.compile_shape: str | None = None  # the compile shape's label, from the first worker's Ready

    def _worker(self, k: int) -> WorkerProcess:
        return WorkerProcess(
            Service.COMPILE,
            setup=CompileInit(problem=self.problem, device=self.device, screen=self.screen, avoid=self.avoid),
            log_dir=self.session_dir / "logs",
            env=self.env,
            cwd=Path(self.problem.kernel_py).parent,
            startup_timeout_s=self.settings.startup_timeout_s,
            name=f"compile-{k}",
            forked=Device.of(self.device or "") is Device.CPU,
            device=self.device,
        )

    def _ensure(self, n: int) -> WorkerPool:
        want = min(self.cap, max(1, n))
        if self._pool is None:
            self._pool = WorkerPool([self._worker(k) for k in range(want)])
            readies = self._pool.start()
            self.compile_shape = str(readies[0].info.get("shape"))
        elif len(self._pool.workers) < want:
            have = len(self._pool.workers)
            self._pool.grow([self._worker(k) for k in range(have, want)])
        return self._pool

    def prepare(self, n: int) -> None:
        """Start ``n`` workers (at most the cap) now, before any batch: a session starts them with its bench workers,
        before its budget's clock, where the first batches paid their start-up (:mod:`kernelopt.tuning.pace`).

        Raises:
            WorkerStartError: as :meth:`compile`.
        """
        self._ensure(n)

    @property
    def workers(self) -> int:
        """Workers started so far."""
        return 0 if self._pool is None else len(self._pool.workers)

    @property
    def starts(self) -> int:
        """Worker starts so far (restarts after a hang or crash included)."""
        return 0 if self._pool is None else sum(w.starts for w in self._pool.workers)

    @property
    def start_s(self) -> float:
        """The seconds its workers' starts took so far, summed (restarts included)."""
        return 0.0 if self._pool is None else self._pool.start_s

    def compile(
        self, paths: Sequence[Path], *, bound: Callable[[float], float | None] | None = None
    ) -> list[CompileResult]:
        """Compile each candidate file; one result each, in order. ``bound`` (the session's,
        :meth:`~kernelopt.tuning.pace.CandidateLimit.seconds`): the adaptive limit -> the limit a compilation gets now,
        ``None`` when it is not sent (``NOT_RUN_BUDGET``).

        Raises:
            WorkerStartError: a compile worker could not start (its setup failed: a broken environment, or
                reference.py failing on the compile shape, ``BAD_INPUT``).
        """
        if not paths:
            return []
        pool = self._ensure(len(paths))

        def on_answer(j: int, answer: Answer, seconds: float, worker: WorkerProcess) -> None:
            if isinstance(answer, Reply):
                reply = CompileReply.model_validate(answer.payload)
                if reply.outcome is Outcome.OK and reply.compile_s is not None:
                    self.timeout.observe(reply.compile_s)
                if reply.restart:
                    worker.kill()

        def limit() -> float | None:
            return self.timeout.current() if bound is None else bound(self.timeout.current())

        answers = pool.run(
            [Job(CompileKind.COMPILE, {"path": str(p)}) for p in paths], timeout_s=limit, on_answer=on_answer
        )
        return [_result(Path(p), a) for p, a in zip(paths, answers, strict=True)]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def _result(path: Path, answer: Answer) -> CompileResult:
    if isinstance(answer, Reply):
        reply = CompileReply.model_validate(answer.payload)
        return CompileResult(path, reply.outcome, reply.reason, reply.compile_s)
    assert isinstance(answer, Failure)
    if answer.outcome is FailureKind.RUN_TIMEOUT:
        return CompileResult(path, Outcome.COMPILE_TIMEOUT, f"compiling: {answer.reason} (the adaptive compile limit)")
    if answer.outcome is FailureKind.WORKER_CRASH:
        return CompileResult(path, Outcome.WORKER_CRASH, f"compiling: {answer.reason}")
    if answer.outcome is FailureKind.NOT_SENT:
        return CompileResult(path, Outcome.NOT_RUN_BUDGET, f"compiling: {answer.reason} (the session's wall time)")
    return CompileResult(path, Outcome.RUN_ERROR, f"the compile service failed: {answer.reason}")


#: The session's one folder of torch's extension builds (``TORCH_EXTENSIONS_DIR`` of every worker of a session).
EXTENSIONS_DIR = "torch-extensions"


def shared_cache_env(base: Mapping[str, str], session_dir: Path) -> dict[str, str]:
    """``base`` with the session's one Triton cache and extension build folder (every worker of a session
    uses them, so what a compile worker built the bench worker loads)."""
    return dict(base) | build_folders(Path(session_dir) / CACHE_DIR, Path(session_dir) / EXTENSIONS_DIR)


def discovery_env(base: Mapping[str, str], out: Path) -> dict[str, str]:
    """``base`` with the Triton cache of discovery's run of the task on a GPU: ``out / CACHE_DIR``, beside the session
    folders of ``tune``'s output folder, kept from one run to the next (as Triton's own cache would be) and linked
    into each session's cache before its workers start (:func:`seed_cache`)."""
    return dict(base) | {TRITON_CACHE_DIR: str(Path(out) / CACHE_DIR)}


def seed_cache(source: Path, session_dir: Path) -> int:
    """Each kernel of the Triton cache ``source`` (discovery's, :func:`discovery_env`) that the session's cache lacks,
    linked into it (copied where a link cannot be made): the number added. Discovery's run compiled what it ran (a
    keyed list of eight whole at its first ``SHAPES`` entry, the pinned pick at the others), in the user's Triton
    cache, and the session's compile and bench workers compiled the same kernels again in theirs (fla_matmul on the
    H100, late45's Seen line). Triton keys an entry by all its compile reads (the kernel's source, its specialization,
    the options, the target), so an entry serves whichever process asks for that compile; Triton replaces a file
    whole, never writes into one, so a link shared by two caches stays what each wrote. Call it before the session's
    workers start (nothing else writes the session's cache then: its run lock)."""
    target = Path(session_dir) / CACHE_DIR
    if not Path(source).is_dir():
        return 0
    added = 0
    for entry in sorted(Path(source).iterdir()):
        dest = target / entry.name
        if not entry.is_dir() or entry.name.startswith(".") or dest.exists():
            continue
        target.mkdir(parents=True, exist_ok=True)
        partial = target / f".{entry.name}.seeding"  # an interrupted seeding's, never read by Triton
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(entry, partial, copy_function=_link_or_copy)
        os.replace(partial, dest)
        added += 1
    return added


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or one without hard links
        shutil.copy2(src, dst)
