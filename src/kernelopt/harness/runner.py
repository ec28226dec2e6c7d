"""Start a harness worker in a fresh process group, watch it, kill it on a timeout, read its result.

The worker is started through the subprocess gateway (:func:`kernelopt.proc.start_command`): its own
process group, stdout and stderr in files (no pipe can fill up and block it), an overall wall-clock
limit, and the whole group killed whatever happens, so nothing the candidate started survives into
the next run. The worker reports phase events to a progress file, and the
:class:`~kernelopt.harness.progress.Watchdog` applies separate limits to start-up, compilation, each
case and the run.

How the worker process is started is one seam, :class:`WorkerStarter`: by default
:func:`kernelopt.proc.start_command` (a fresh ``python -m kernelopt.harness.worker``); inside
``with workers_started_by(starter):`` every :func:`run_worker` of this thread (and of the gate it calls)
starts its worker through ``starter`` instead. ``kernelopt batch`` passes its pool of pre-started workers
(:mod:`kernelopt.batch.pool`): a fresh child forked from a process that has torch imported, watched and
killed the same way.

Runs in the orchestrator: imports no torch.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from kernelopt.fileio import redact_tree
from kernelopt.harness.model import Culprit, RunOutcome, WorkerJob, WorkerResult
from kernelopt.harness.progress import LimitKind, Limits, Phase, ProgressReader, Step, Timeout, Watchdog
from kernelopt.jsontext import dump_json, load_json
from kernelopt.proc import start_command
from kernelopt.vocabulary import Device

# the one worker environment and signal naming, re-exported for the harness
from kernelopt.worker.client import signal_name as signal_name
from kernelopt.worker.environment import worker_env as worker_env
from kernelopt.worker.forkpool import shared_cpu_pool
from kernelopt.worker.output import OutputCap

POLL_S = 0.02
EXIT_GRACE_S = 15.0
KEEP_RUNS = 20
STDERR_TAIL_LINES = 30
WORKER_MODULE = "kernelopt.harness.worker"


class WatchedWorker(Protocol):
    """A started worker as :func:`run_worker` watches it (what :class:`kernelopt.proc.RunningCommand` offers).

    Attributes:
        started_at: ``time.monotonic()`` just before the worker was started.
        timed_out: True once it was killed for running past its overall limit.
    """

    started_at: float
    timed_out: bool

    def running(self) -> bool:
        """True while it runs; past its limit it is killed here and this returns False."""
        ...

    def allow_exit(self, grace_s: float) -> None:
        """Its result is written: kill it if it has not exited ``grace_s`` seconds from now."""
        ...

    def kill(self) -> None:
        """Kill it and everything it started (its process group); harmless once it has exited."""
        ...

    @property
    def returncode(self) -> int | None:
        """Exit status (negative for a signal); ``None`` while running or when killed on timeout."""
        ...


class WorkerStarter(Protocol):
    """Starts ``argv`` (``[python, -m, MODULE, JOB.json]``) with its output in files; the same signature as
    :func:`kernelopt.proc.start_command`. Leaving the context kills the worker's process group."""

    def __call__(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float,
        stdout_path: Path,
        stderr_path: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> AbstractContextManager[WatchedWorker]: ...


_STARTER: ContextVar[WorkerStarter | None] = ContextVar("kernelopt_worker_starter", default=None)


@contextmanager
def workers_started_by(starter: WorkerStarter) -> Iterator[None]:
    """Inside this block (this thread, or a context copied from it) :func:`run_worker` starts its workers
    through ``starter`` instead of a fresh process from :func:`kernelopt.proc.start_command`."""
    token = _STARTER.set(starter)
    try:
        yield
    finally:
        _STARTER.reset(token)


def _default_starter(job: WorkerJob, env: Mapping[str, str]) -> WorkerStarter:
    """A run on the CPU starts in a child forked from this process's fork server for CPU runs (torch imported
    once per process, :func:`kernelopt.worker.forkpool.shared_cpu_pool`); anything else, and a run where that
    server cannot be had, as a fresh ``python -m`` process."""
    if job.device is not None and Device.of(job.device) is Device.CPU:
        pool = shared_cpu_pool(env)
        if pool is not None:
            return pool.start
    return start_command


def new_run_dir(state_dir: Path, tag: str) -> Path:
    """A fresh folder ``<state_dir>/runs/<utc>-<tag>-<random>/``; older runs beyond the newest 20 are removed."""
    runs = state_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    existing = sorted((p for p in runs.iterdir() if p.is_dir()), key=lambda p: p.name)
    for old in existing[: max(0, len(existing) - KEEP_RUNS + 1)]:
        shutil.rmtree(old, ignore_errors=True)
    path = runs / f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{tag}-{secrets.token_hex(3)}"
    path.mkdir()
    return path


def _tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    text = data[-64 * 1024 :].decode(errors="replace")
    tail = "\n".join(text.splitlines()[-lines:])
    return tail or None


def _watch(worker: WatchedWorker, dog: Watchdog, reader: ProgressReader, caps: Sequence[OutputCap]) -> Timeout | None:
    """Watch a started worker until it exits, or until ``dog`` finds a limit passed (then kill it and return
    that :class:`Timeout`). Feeds ``dog`` the progress events and keeps the captured output trimmed; once
    the result is written, a process that does not exit (a hung CUDA teardown) is killed after
    :data:`EXIT_GRACE_S`."""
    while True:
        for ev in reader.new_events():
            dog.feed(ev)
        if dog.phase is Phase.DONE:
            worker.allow_exit(EXIT_GRACE_S)
        for cap in caps:
            cap.trim()
        if not worker.running():
            return None
        if dog.phase is not Phase.DONE:
            timeout = dog.check(time.monotonic())
            if timeout is not None:
                worker.kill()
                return timeout
        time.sleep(POLL_S)


def _read_result(path: Path) -> WorkerResult | None:
    """The worker's result file, ``None`` when it is missing or not a valid result (a crash mid-write)."""
    if not path.is_file():
        return None
    try:
        return load_json(WorkerResult, path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError):
        return None


def mark_killed(progress_path: Path) -> None:
    """Append the ``killed`` event to a worker's progress file (its open phase is work up to now: the
    batch's ``work_s``); a file that cannot be written loses only that figure."""
    line = json.dumps({"t": time.monotonic(), "event": "killed"}) + "\n"
    try:
        with open(progress_path, "a+b") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":  # a line the killed worker left half-written stays apart
                    line = "\n" + line
            fh.write(line.encode())
    except OSError:
        return


def _timeout_culprit(timeout: Timeout | None, *, in_problem: bool, in_check: bool = False) -> Culprit:
    """Whose fault a kill at ``timeout`` is: the problem's in its own code (its inputs, its reference), the
    checker's past the checker's own limit or killed while the checker worked (``in_check``: its copies and
    comparison, by the overall limit or a batch's per-problem deadline), never the kernel's; else the kernel's."""
    if timeout is not None and in_problem:
        return Culprit.PROBLEM
    if timeout is not None and (timeout.kind is LimitKind.CHECK or in_check):
        return Culprit.CHECKER
    return Culprit.KERNEL


OUT_OF_MEMORY_LINE = "OutOfMemoryError"
"""What the last line of a worker's error output holds when it died of torch's out-of-memory error."""


def _crash_culprit(*, in_problem: bool, step: Step | None, stderr_tail: str | None) -> Culprit:
    """Whose fault a worker's death without a result is: the problem's in its own code, the checker's when it died of
    the device's memory in the checker's own step (its copies and comparison), else the kernel's."""
    if in_problem:
        return Culprit.PROBLEM
    lines = (stderr_tail or "").strip().splitlines()
    if step is Step.CHECK and lines and OUT_OF_MEMORY_LINE in lines[-1]:
        return Culprit.CHECKER
    return Culprit.KERNEL


def release_build_locks(torch_extensions: Path) -> list[Path]:
    """Remove the lock files torch's extension builds left in ``torch_extensions`` (a ``TORCH_EXTENSIONS_DIR``) when
    no process of ours builds there any more: torch takes ``<name>/lock`` for the length of a build (``FileBaton``),
    and a later build of that name waits for it to go, with no limit of its own. A Ctrl-C or a compile limit during
    the user's C++ extension build left it, and the next `validate` waited out the whole compile limit, "TIMEOUT_FAIL:
    loading kernel.py (import and compilation) ran past the compile limit of 300 s", the kernel blamed (n95); a
    rerun of `tune`, every candidate "no reply within 60 s" (n97). A workspace's or a session's run lock keeps any
    other kernelopt run off the folder meanwhile. Returns the files removed."""
    gone = []
    for lock in sorted(Path(torch_extensions).glob("*/lock")):
        try:
            lock.unlink()
        except OSError:  # gone already, or the folder is read-only: nothing to release
            continue
        gone.append(lock)
    return gone


def run_worker(
    job: WorkerJob,
    *,
    limits: Limits,
    run_dir: Path,
    env: Mapping[str, str],
    cwd: Path | None = None,
    module: str = WORKER_MODULE,
    job_json: str | None = None,
) -> RunOutcome:
    """Run ``job`` in a new worker process and return what happened.

    Args:
        job: the job; its ``progress_path`` and ``result_path`` should lie in ``run_dir``.
        limits: start-up, compile, case and run limits (seconds).
        run_dir: folder for job.json, stdout.txt, stderr.txt.
        env: the worker's full environment (see :func:`worker_env`).
        cwd: working directory of the worker.
        module: the worker module run as ``python -m MODULE job.json`` (another worker of the same
            progress protocol).
        job_json: the text written to job.json instead of ``job`` (that worker's own job; ``job`` then
            only names the progress and result files).

    Returns:
        A :class:`RunOutcome`; a crash or timeout is reported in it, never raised.

    Raises:
        OSError: the Python interpreter cannot be started (a broken environment, not a kernel failure).
    """
    job_path = run_dir / "job.json"
    job_path.write_text(job_json if job_json is not None else dump_json(job, indent=2), encoding="utf-8")
    out_path, err_path = run_dir / "stdout.txt", run_dir / "stderr.txt"
    argv = [sys.executable, "-m", module, str(job_path)]
    check_allowance = limits.check_s if math.isfinite(limits.check_s) else 0.0
    hard_limit = limits.startup_s + 2 * limits.compile_s + limits.run_s + check_allowance + 30.0
    caps = (OutputCap(out_path), OutputCap(err_path))
    starter: WorkerStarter = _STARTER.get() or _default_starter(job, env)
    try:
        with starter(
            argv, timeout_s=hard_limit, stdout_path=out_path, stderr_path=err_path, cwd=cwd, env=env
        ) as worker:
            start = worker.started_at
            dog = Watchdog(limits=limits, started_at=start)
            reader = ProgressReader(Path(job.progress_path))
            timeout = _watch(worker, dog, reader, caps)
    finally:  # the worker is gone (leaving the context killed its process group, ninja and the compiler with it)
        for source in job.kernels:
            release_build_locks(Path(source.build_dir) / "torch_extensions")
    dropped = sum(cap.finish() for cap in caps)
    redact_tree(run_dir)  # the kernel may have read a secret from our /proc/<pid>/environ and printed it
    if worker.timed_out:
        timeout = Timeout(LimitKind.RUN, f"the worker ran past the overall limit of {hard_limit:g} s in {dog.where()}")
    culprit = _timeout_culprit(timeout, in_problem=dog.in_problem_code, in_check=dog.check_since is not None)
    killed_in = dog.phase.value if timeout is not None else None  # before the kill's own event ends the phase
    if timeout is not None:
        mark_killed(Path(job.progress_path))
    for ev in reader.new_events():
        dog.feed(ev)
    in_problem = dog.in_problem_code or dog.phase is Phase.REFERENCE
    stderr_tail = _tail(err_path)
    return RunOutcome(
        result=_read_result(Path(job.result_path)) if timeout is None else None,
        returncode=None if timeout is not None else worker.returncode,
        timed_out=timeout is not None,
        timeout_message=timeout.message if timeout else None,
        timeout_culprit=culprit,
        crash_culprit=_crash_culprit(in_problem=in_problem, step=dog.step, stderr_tail=stderr_tail),
        killed_in_phase=killed_in,
        last_phase=dog.phase.value,
        last_case=dog.case,
        last_label=dog.label,
        last_where=dog.where(),
        stderr_tail=stderr_tail,
        duration_s=time.monotonic() - start,
        run_dir=str(run_dir),
        output_dropped_bytes=dropped,
    )
