"""Warm validation: the gate of each problem in this process, its workers from a pool of pre-started ones.

The default way ``kernelopt batch`` validates. What a problem costs beyond its own checks and timing is
what the cold path (:mod:`.cold`) pays again and again: a Python start, the kernelopt and torch imports
and a CUDA start for the ``kernelopt validate`` process and for each of its two workers. Here:

- the gate (:func:`kernelopt.harness.gate.validate`, the same call ``kernelopt validate`` makes) runs
  in the batch's own process, which imports no torch;
- each of its worker runs is a fresh child forked from the pool's server (:class:`ForkPool`), with
  torch and triton already imported; on a GPU the child that runs next is forked and has started CUDA
  while the current one works. The child is watched and killed like a fresh process (the gate's
  start-up, compile, per-case and run limits; the batch's ``--problem-timeout-s`` on top), so a problem
  that crashes or hangs its worker is its own row and the next run gets a new child;
- while one problem is checked and timed, the next one is prepared in a thread: its workspace is made
  and its kernel loaded once in a ``load`` run (import only, nothing on the device), which builds any
  CUDA extension (``load_inline``: KernelBench's generated kernels compile there) into the build folder
  the gate's runs use. Triton kernels compile at their first call, in the check.

The figures are the gate's, exactly as on the cold path.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from kernelopt.batch.model import ProblemRow, ProblemStatus
from kernelopt.batch.problems import BatchItem
from kernelopt.batch.rows import BatchOptions, item_row, validate_row
from kernelopt.batch.work import killed_in, phase_seconds, work_seconds
from kernelopt.errors import KerneloptError
from kernelopt.harness.gate import build_dir, limits_of, problem_constants, validate
from kernelopt.harness.model import Culprit, JobMode, KernelSource, WorkerJob
from kernelopt.harness.progress import Phase
from kernelopt.harness.runner import (
    WatchedWorker,
    WorkerStarter,
    new_run_dir,
    run_worker,
    worker_env,
    workers_started_by,
)
from kernelopt.harness.settings import HarnessSettings
from kernelopt.loop.opening import open_or_create
from kernelopt.memory.model import version_label
from kernelopt.worker.forkpool import ForkPool, PoolUnavailable
from kernelopt.workspace import Workspace


class WarmRunner:
    """Validates items through a :class:`ForkPool`, preparing the next item while the current one runs.

    Args:
        options: the batch's options (validate mode).
        problems: how many items the batch has at most (bounds the pool's lifetime).
        spare: keep a child forked and warmed ahead (the pool's ``spare``).

    Raises (from :meth:`run`):
        PoolUnavailable: the pool's server cannot be started (again).
    """

    def __init__(self, options: BatchOptions, *, problems: int, spare: bool = True) -> None:
        self.options = options
        self.settings = HarnessSettings.from_env(
            None,
            device=options.device,
            compile_reference=options.compile_reference,
            size_scale=options.size_scale,
        )
        self.pool = ForkPool(
            options.out_dir / "pool",
            warm_device="cpu" if options.device == "cpu" else "cuda",
            lifetime_s=self.settings.startup_timeout_s + (problems + 1) * options.problem_timeout_s,
            startup_timeout_s=self.settings.startup_timeout_s,
            spare=spare,
        )
        self._ahead: dict[str, Future[Workspace | str]] = {}
        # workspace -> its load run's kill: the row's status, its reason, the run's start
        self._load_timeouts: dict[Path, tuple[ProblemStatus, str, datetime]] = {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernelopt-batch-ahead")

    def close(self) -> None:
        """Stop the pool (a load still running ahead is killed with it) and the preparing thread."""
        self.pool.close()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def run(self, item: BatchItem, upcoming: BatchItem | None = None) -> ProblemRow:
        """Validate ``item``; start preparing ``upcoming`` (the next item) meanwhile."""
        if self.pool.ready is None:
            self.pool.open()  # once, before the first problem's clock starts (``pool.ready.preload_s``)
        start, since = time.monotonic(), datetime.now(UTC)
        ahead = self._ahead.pop(item.key, None)
        prepared = ahead.result() if ahead is not None else self._prepare(item, load=False)
        if upcoming is not None and upcoming.defect is None and upcoming.key not in self._ahead:
            self._ahead[upcoming.key] = self._executor.submit(self._prepare, upcoming)
        row = item_row(item)
        if isinstance(prepared, str):
            return row.model_copy(update={"reason": prepared, "duration_s": round(time.monotonic() - start, 3)})
        ws = prepared
        timeout = self._load_timeouts.pop(ws.root.resolve(), None)
        if timeout is not None:  # the load ran past a limit the check would wait out again
            status, reason, loaded_since = timeout
            return row.model_copy(
                update={
                    "status": status,
                    "correct": False if status is ProblemStatus.TIMEOUT_FAIL else None,
                    "reason": reason,
                    "workspace": str(ws.root),
                    "duration_s": round(time.monotonic() - start, 3),
                    "work_s": work_seconds(ws.state_dir, loaded_since),
                    "phases": phase_seconds(ws.state_dir, loaded_since),
                }
            )
        deadline = start + self.options.problem_timeout_s
        try:
            with workers_started_by(self._bounded(deadline)):
                report = validate(
                    ws,
                    0,
                    previous=None,
                    device=self.options.device,
                    compile_reference=self.options.compile_reference,
                    size_scale=self.options.size_scale,
                    scratch=True,
                )
            row = validate_row(row, report)
        except PoolUnavailable:
            raise
        except KerneloptError as exc:  # the gate's one-line errors: bad task card, no device, bad sizes
            row = row.model_copy(update={"reason": exc.one_line()})
        row = row.model_copy(
            update={
                "workspace": str(ws.root),
                "duration_s": round(time.monotonic() - start, 3),
                "work_s": work_seconds(ws.state_dir, since),
                "phases": phase_seconds(ws.state_dir, since),
            }
        )
        if row.status is ProblemStatus.TIMEOUT_FAIL and time.monotonic() >= deadline:
            limit = self.options.batch_limit_reason(killed_in(ws.state_dir, since))
            row = row.model_copy(update={"reason": limit})
        elif row.status is ProblemStatus.ERROR and time.monotonic() >= deadline:  # killed in the problem's code
            row = row.model_copy(update={"reason": f"{row.reason}; {self.options.batch_limit_reason()}"})
        return row

    def _bounded(self, deadline: float) -> WorkerStarter:
        """The pool's starter with every run's limit cut to the problem's ``deadline``."""
        pool = self.pool

        @contextmanager
        def start(
            argv: Sequence[str],
            *,
            timeout_s: float,
            stdout_path: Path,
            stderr_path: Path,
            cwd: Path | None = None,
            env: Mapping[str, str] | None = None,
        ) -> Iterator[WatchedWorker]:
            left = max(0.001, deadline - time.monotonic())
            with pool.start(
                argv, timeout_s=min(timeout_s, left), stdout_path=stdout_path, stderr_path=stderr_path, cwd=cwd, env=env
            ) as worker:
                yield worker

        return start

    def _prepare(self, item: BatchItem, *, load: bool = True) -> Workspace | str:
        """The item's workspace, with its kernel loaded once when ``load`` (or the one-line reason it has
        no workspace). Loading pays only ahead, beside another problem's runs."""
        try:
            ws = open_or_create(item.folder, name=item.workspace_name, root=self.options.workspace_root).workspace
        except KerneloptError as exc:
            return exc.one_line()
        if load:
            self._load(ws)
        return ws

    def _load(self, ws: Workspace) -> None:
        """A ``load`` run of V0 into the build folder the gate's runs of V0 use; its outcome is not a
        verdict (the gate's check meets any failure again and reports it), except a kill past the compile
        limit in kernel.py's import: the check has the same limit and would wait it out a second time, so
        the row is that ``TIMEOUT_FAIL`` (kept in ``_load_timeouts``). The run is the problem's own work, bounded
        by ``--problem-timeout-s`` as its gate is: a kill past it is the row's ``TIMEOUT_FAIL`` (``ERROR`` in the
        reference's code), the place named (break22 b50: a kernel.py whose import hangs held the batch for the 300
        s compile limit under ``--problem-timeout-s 40``)."""
        try:
            constants = problem_constants(ws, self.settings)
        except KerneloptError:
            return  # the gate says why
        state = ws.state_dir.resolve()
        kernel, reference = ws.kernel_py.resolve(), ws.reference_py.resolve()
        label = version_label(0)
        loaded_since = datetime.now(UTC)
        run_dir = new_run_dir(state, JobMode.LOAD.value)
        job = WorkerJob(
            mode=JobMode.LOAD,
            reference_py=str(reference),
            kernels=[KernelSource(label=label, kernel_py=str(kernel), build_dir=str(build_dir(state, label, kernel)))],
            device=self.settings.device,
            case_timeout_s=self.settings.case_timeout_s,
            progress_path=str(run_dir / "progress.jsonl"),
            result_path=str(run_dir / "result.json"),
            constants=constants,
        )
        deadline = time.monotonic() + self.options.problem_timeout_s
        with workers_started_by(self._bounded(deadline)):
            outcome = run_worker(
                job,
                limits=limits_of(self.settings),
                run_dir=run_dir,
                env=worker_env(None, {"KERNELOPT_WORKER": "1"}, device=self.settings.device),
                cwd=reference.parent,
            )
        if outcome.timed_out and time.monotonic() >= deadline:
            killed = killed_in(state, loaded_since)
            status = ProblemStatus.ERROR if killed and killed.problems else ProblemStatus.TIMEOUT_FAIL
            self._load_timeouts[ws.root.resolve()] = (status, self.options.batch_limit_reason(killed), loaded_since)
        elif outcome.killed_in_phase == Phase.LOAD.value and outcome.timeout_culprit is Culprit.KERNEL:
            message = f"correctness: {outcome.timeout_message or 'loading kernel.py ran past the compile limit'}"
            self._load_timeouts[ws.root.resolve()] = (ProblemStatus.TIMEOUT_FAIL, message, loaded_since)
