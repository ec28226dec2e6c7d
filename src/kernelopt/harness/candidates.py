"""Compile, check and time a set of candidate kernel files quickly (Stage 3 of the rules backend's search).

Orchestrator side (this module imports no torch): :func:`evaluate` takes candidate sources (each a
complete ``kernel.py`` text, one configuration of the plan's candidate set) and returns one
:class:`Evaluation` per candidate. It works in two passes, each in killable worker processes started
through :func:`kernelopt.harness.runner.run_worker`:

1. **check** (in parallel, at most ``parallel`` workers, default the CPU count): each worker imports
   its share of the candidates one after another, which compiles them (Triton JIT, extension builds)
   into each candidate's own build folder, and checks the output on the *small* shape (the entry of
   ``SHAPES`` with the fewest elements, one seed) against the reference;
2. **time** (one worker, so that no two candidates share the GPU while timed): every candidate that
   passed is timed on the primary shape (``SHAPES[0]``) with a *quick* timer (the gate's sampler,
   L2 flushed, ``bench_seconds`` per candidate, no interleaving), reusing the compiled code of pass 1.

The worker of a pass reports ``{"event": "candidate", "label": ...}`` before each candidate and appends
one result line per candidate, so a candidate that hangs (the watchdog's compile or case limit) or
kills its process (a segfault) is a result with its reason, and the pass goes on with the next
candidates in a fresh worker. Results are also kept in ``<sweep_dir>/results.json`` keyed by the
candidate source's sha256, so a sweep interrupted by ``kill -9`` resumes where it stopped.

Worker side: ``python -m kernelopt.harness.candidates JOB.json`` (runs each candidate through
:func:`kernelopt.harness.worker.run_job`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt.errors import EnvironmentProblem
from kernelopt.harness.model import BenchSettings, JobMode, KernelSource, RunOutcome, WorkerJob, WorkerResult
from kernelopt.harness.poison import MALLOC_PERTURB
from kernelopt.harness.progress import Limits, Phase, ProgressReader, ProgressWriter
from kernelopt.harness.runner import run_worker, signal_name, worker_env
from kernelopt.harness.stats import summarize
from kernelopt.memory.model import CandidateStatus
from kernelopt.memory.store import atomic_write_text
from kernelopt.oneline import last_line, one_line
from kernelopt.proc import die_with_parent

WORKER_MODULE = "kernelopt.harness.candidates"
RESULTS_FILE = "results.json"
#: Failure classes the worker's checks give a wrong output (see :class:`kernelopt.harness.model.Failure`).
WRONG_RESULT_CLASSES = frozenset(
    {"Mismatch", "NaN", "WrongShape", "InputMutated", "NotWritten", "ConstantOutput", "CachedResult", "WrongDtype"}
)
EXIT_ENVIRONMENT = 3


class SweepSettings(BaseModel):
    """Limits and timer of a candidate sweep.

    Attributes:
        compile_timeout_s: limit for importing one candidate and for any one JIT compilation, seconds
            (separate from the run limits, so a slow compile is not read as a hang).
        case_timeout_s: limit for checking or timing one candidate on one shape, compile time excluded.
        startup_timeout_s: limit for a worker to start Python and import torch.
        bench_seconds: quick-timer measurement time per candidate, seconds.
        parallel: check workers run at once (``None``: the CPU count).
        device: ``cuda`` / ``cpu``; ``None`` lets the worker choose.
    """

    model_config = ConfigDict(extra="forbid")

    compile_timeout_s: float = Field(default=120.0, gt=0)
    case_timeout_s: float = Field(default=20.0, gt=0)
    startup_timeout_s: float = Field(default=120.0, gt=0)
    bench_seconds: float = Field(default=0.2, gt=0)
    parallel: int | None = Field(default=None, ge=1)
    device: str | None = None

    def workers(self, n: int) -> int:
        """Check workers for ``n`` candidates: at most the CPU count (or ``parallel``), at least one."""
        cap = self.parallel if self.parallel is not None else (os.cpu_count() or 1)
        return max(1, min(cap, n))

    def quick_bench(self) -> BenchSettings:
        """The quick timer: the gate's sampler with a short measurement and few samples."""
        return BenchSettings(seconds_per_case=self.bench_seconds, min_blocks=3, max_blocks=50)


class Candidate(BaseModel):
    """One candidate to evaluate: a label and the full text of its kernel file."""

    label: str
    source: str

    def digest(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()


class Evaluation(BaseModel):
    """What one candidate did.

    Attributes:
        label: the candidate's label.
        status: ``ok`` (correct and timed) or why not.
        latency_us: median of the quick timer's samples on the primary shape, microseconds.
        samples: samples taken.
        reason: one line for a failed candidate.
        compile_s: seconds spent in JIT compilation during the check.
        digest: sha256 of the candidate's source (the resume key).
    """

    label: str
    status: CandidateStatus
    latency_us: float | None = None
    samples: int = 0
    reason: str | None = None
    compile_s: float | None = None
    digest: str = ""


class CandidateJob(BaseModel):
    """What a candidate worker is asked to do (``mode`` check or bench for each of ``kernels``)."""

    model_config = ConfigDict(extra="forbid")

    mode: JobMode
    reference_py: str
    kernels: list[KernelSource] = Field(min_length=1)
    device: str | None = None
    case: int | None = None  # None: the small shape (check) / SHAPES[0] (bench)
    dtype_hint: str | None = None
    case_timeout_s: float
    bench: BenchSettings = Field(default_factory=BenchSettings)
    then_bench: bool = False  # check mode: time each correct candidate right after its check
    progress_path: str
    results_path: str


class _Line(BaseModel):
    label: str
    result: WorkerResult
    bench: WorkerResult | None = None


# -- orchestrator ----------------------------------------------------------------------------------


def _limits(settings: SweepSettings, n: int) -> Limits:
    return Limits(
        startup_s=settings.startup_timeout_s,
        compile_s=settings.compile_timeout_s,
        case_s=settings.case_timeout_s,
        run_s=settings.case_timeout_s * max(1, n) + 30.0,
    )


def _read_lines(path: Path) -> dict[str, _Line]:
    out: dict[str, _Line] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return out
    for raw in text.splitlines():
        try:
            line = _Line.model_validate_json(raw)
        except (ValidationError, ValueError):
            continue  # a half-written last line of a killed worker
        out[line.label] = line
    return out


def _last_started(progress: Path) -> str | None:
    label = None
    for ev in ProgressReader(progress).new_events():
        if ev.get("event") == "candidate" and isinstance(ev.get("label"), str):
            label = ev["label"]
    return label


def _died(outcome: RunOutcome) -> tuple[CandidateStatus, str]:
    """Status and reason of the candidate a worker was on when it was killed or died."""
    if outcome.timed_out:
        return CandidateStatus.TIMEOUT, outcome.timeout_message or "timed out"
    sig = signal_name(outcome.returncode)
    if sig is not None:
        return CandidateStatus.CRASHED, f"the worker died with {sig}"
    tail = last_line(outcome.stderr_tail or "", 200)
    detail = f": {tail}" if tail else ""
    return CandidateStatus.CRASHED, f"the worker exited with code {outcome.returncode} without a result{detail}"


def classify(result: WorkerResult) -> tuple[CandidateStatus, str] | None:
    """Status and reason of a worker result that failed; ``None`` when it did not."""
    f = result.failure
    if f is None:
        return None
    cls = f.error_class or ""
    if f.message.startswith("loading") or "compil" in cls.lower():
        return CandidateStatus.COMPILE_FAILED, f.message
    if cls in WRONG_RESULT_CLASSES:
        return CandidateStatus.WRONG_RESULT, f.message
    if cls.startswith("Timeout"):
        return CandidateStatus.TIMEOUT, f.message
    return CandidateStatus.CRASHED, f.message


_RUN_NUMBERS = itertools.count()
#: Called with (label, the worker's result, or (status, reason) when the worker died on it).
_Done = Callable[[str, "_Line | None", tuple[CandidateStatus, str] | None], None]


def _run_dir(sweep_dir: Path, mode: JobMode) -> Path:
    """A fresh run folder of this sweep (never pruned while the sweep runs: parallel workers use them)."""
    path = sweep_dir / "runs" / f"{mode.value}-{next(_RUN_NUMBERS):04d}-{secrets.token_hex(3)}"
    path.mkdir(parents=True)
    return path


def _drain(
    mode: JobMode,
    sources: list[KernelSource],
    *,
    reference_py: Path,
    sweep_dir: Path,
    settings: SweepSettings,
    dtype_hint: str | None,
    done: _Done,
    then_bench: bool = False,
) -> None:
    """Run ``sources`` through workers until each has a result (a killed worker is restarted after
    the candidate it was on)."""
    pending = list(sources)
    while pending:
        run_dir = _run_dir(sweep_dir, mode)
        job = CandidateJob(
            mode=mode,
            reference_py=str(reference_py),
            kernels=pending,
            device=settings.device,
            dtype_hint=dtype_hint,
            case_timeout_s=settings.case_timeout_s,
            bench=settings.quick_bench(),
            then_bench=then_bench,
            progress_path=str(run_dir / "progress.jsonl"),
            results_path=str(run_dir / "results.jsonl"),
        )
        extra = {"KERNELOPT_WORKER": "1"}
        if mode is JobMode.CHECK:
            extra["MALLOC_PERTURB_"] = MALLOC_PERTURB  # poison host allocations, as the gate's check does
        env = worker_env(os.environ, extra, device=settings.device)
        outcome = _run_candidate_worker(job, settings, len(pending), run_dir, env, reference_py.parent)
        if outcome.result is None and outcome.returncode == EXIT_ENVIRONMENT:
            lines = (outcome.stderr_tail or "").strip().splitlines()
            raise EnvironmentProblem(lines[-1] if lines else "the candidate worker found no usable device")
        results = _read_lines(Path(job.results_path))
        for src in pending:
            if src.label in results:
                done(src.label, results[src.label], None)
        rest = [s for s in pending if s.label not in results]
        if not rest:
            return
        stuck = _last_started(Path(job.progress_path))
        if stuck is None or stuck not in {s.label for s in rest}:
            # the worker died before reaching a candidate (start-up): every remaining one fails with it
            status, reason = _died(outcome)
            for s in rest:
                done(s.label, None, (status, f"{reason} (before this candidate started)"))
            return
        done(stuck, None, _died(outcome))
        pending = [s for s in rest if s.label != stuck]


def _run_candidate_worker(
    job: CandidateJob,
    settings: SweepSettings,
    n: int,
    run_dir: Path,
    env: dict[str, str],
    cwd: Path,
) -> RunOutcome:
    """Start ``python -m kernelopt.harness.candidates JOB`` under the harness watchdog."""
    shim = WorkerJob(
        mode=job.mode,
        reference_py=job.reference_py,
        kernels=job.kernels[:1],
        progress_path=job.progress_path,
        result_path=str(run_dir / "unused.json"),
    )
    return run_worker(
        shim,
        limits=_limits(settings, n),
        run_dir=run_dir,
        env=env,
        cwd=cwd,
        module=WORKER_MODULE,
        job_json=job.model_dump_json(indent=1),
    )


def _load_saved(path: Path) -> dict[str, Evaluation]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    out: dict[str, Evaluation] = {}
    for key, value in data.items() if isinstance(data, dict) else []:
        try:
            out[key] = Evaluation.model_validate(value)
        except ValidationError:
            continue
    return out


def evaluate(
    candidates: list[Candidate],
    *,
    reference_py: Path,
    sweep_dir: Path,
    settings: SweepSettings | None = None,
    dtype_hint: str | None = None,
) -> list[Evaluation]:
    """Compile, check (small shape) and quick-time every candidate; one :class:`Evaluation` each, in order.

    Args:
        candidates: labels (unique) and sources of the candidate kernel files.
        reference_py: the workspace's reference.py.
        sweep_dir: this sweep's folder: the candidate files, their build folders, the worker runs and
            ``results.json`` (resume after a kill).
        settings: limits, timer and parallelism.
        dtype_hint: the task card's dtype (tolerances).

    Raises:
        EnvironmentProblem: no usable Python or device (not a candidate's fault).
    """
    settings = settings or SweepSettings()
    reference_py = Path(reference_py).resolve()
    sweep_dir = Path(sweep_dir).resolve()
    sweep_dir.mkdir(parents=True, exist_ok=True)
    saved_path = sweep_dir / RESULTS_FILE
    saved = _load_saved(saved_path)
    by_label: dict[str, Evaluation] = {}
    sources: dict[str, KernelSource] = {}
    for c in candidates:
        digest = c.digest()
        key = f"{settings.device or 'auto'}:{digest}"
        if key in saved and saved[key].status is not CandidateStatus.NOT_TIMED:
            by_label[c.label] = saved[key].model_copy(update={"label": c.label})
            continue
        folder = sweep_dir / f"{c.label}-{digest[:12]}"
        folder.mkdir(exist_ok=True)
        path = folder / "kernel.py"
        if not path.is_file() or path.read_text(encoding="utf-8") != c.source:
            atomic_write_text(path, c.source)
        sources[c.label] = KernelSource(label=c.label, kernel_py=str(path), build_dir=str(folder / "build"))
    digests = {c.label: c.digest() for c in candidates}

    lock = threading.Lock()

    def save(ev: Evaluation) -> None:
        with lock:  # check workers report from several threads
            by_label[ev.label] = ev
            saved[f"{settings.device or 'auto'}:{ev.digest}"] = ev
            text = json.dumps({k: v.model_dump(mode="json") for k, v in saved.items()}, indent=1)
            atomic_write_text(saved_path, text)

    def drain(mode: JobMode, share: list[KernelSource], done: _Done, then_bench: bool = False) -> None:
        _drain(
            mode,
            share,
            reference_py=reference_py,
            sweep_dir=sweep_dir,
            settings=settings,
            dtype_hint=dtype_hint,
            done=done,
            then_bench=then_bench,
        )

    def on_bench(label: str, line: _Line | None, failed: tuple[CandidateStatus, str] | None) -> None:
        result = (line.bench or line.result) if line is not None else None
        prior = by_label.get(label)
        compile_s = line.result.compile_s if line is not None and line.bench is not None else None
        if compile_s is None and prior is not None:
            compile_s = prior.compile_s
        bad = failed or (classify(result) if result is not None else None)
        if bad is not None:
            save(
                Evaluation(label=label, status=bad[0], reason=one_line(f"timing: {bad[1]}", 500), digest=digests[label])
            )
            return
        assert result is not None
        samples = [x for t in result.timings for v in t.versions[:1] for x in v.samples_us]
        finite = [x for x in samples if math.isfinite(x)]
        if not finite:
            save(
                Evaluation(
                    label=label, status=CandidateStatus.NOT_TIMED, reason="no timing samples", digest=digests[label]
                )
            )
            return
        stats = summarize(finite)
        save(
            Evaluation(
                label=label,
                status=CandidateStatus.OK,
                latency_us=stats.median,
                samples=stats.n,
                compile_s=compile_s,
                digest=digests[label],
            )
        )

    checked: dict[str, WorkerResult] = {}

    def on_check(label: str, line: _Line | None, failed: tuple[CandidateStatus, str] | None) -> None:
        result = line.result if line is not None else None
        bad = failed or (classify(result) if result is not None else None)
        if bad is not None:
            save(Evaluation(label=label, status=bad[0], reason=one_line(bad[1], 500), digest=digests[label]))
        elif line is not None and line.bench is not None:
            checked[label] = line.result
            on_bench(label, line, None)
        elif result is not None:
            checked[label] = result
            save(
                Evaluation(
                    label=label,
                    status=CandidateStatus.NOT_TIMED,
                    reason="checked, not yet timed",
                    compile_s=result.compile_s,
                    digest=digests[label],
                )
            )

    todo = [sources[c.label] for c in candidates if c.label in sources]
    need_check = [s for s in todo if _saved_status(saved, settings, digests[s.label]) is not CandidateStatus.NOT_TIMED]
    ready = [s for s in todo if s not in need_check]

    if need_check:
        k = settings.workers(len(need_check))
        shares = [need_check[i::k] for i in range(k)]
        # one worker: nothing else runs beside it, so each candidate is timed right after its check
        # (one process start instead of two); several: they share the machine, so timing waits for pass 2
        with ThreadPoolExecutor(max_workers=k) as pool:
            futures = [pool.submit(drain, JobMode.CHECK, share, on_check, k == 1) for share in shares]
            for fut in futures:
                fut.result()
    timed = [
        s for s in todo if s in ready or (s.label in checked and by_label[s.label].status is CandidateStatus.NOT_TIMED)
    ]

    if timed:
        drain(JobMode.BENCH, timed, on_bench)
    return [by_label[c.label] for c in candidates if c.label in by_label]


def _saved_status(saved: dict[str, Evaluation], settings: SweepSettings, digest: str) -> CandidateStatus | None:
    ev = saved.get(f"{settings.device or 'auto'}:{digest}")
    return ev.status if ev is not None else None


# -- worker ----------------------------------------------------------------------------------------


def small_case(shapes: list[dict[str, object]]) -> int | None:
    """Index of the entry of ``SHAPES`` with the fewest elements (product of its integer values);
    ``None`` when there is at most one shape (then every case is that one)."""
    if len(shapes) <= 1:
        return None

    def size(shape: dict[str, object]) -> float:
        nums = [float(v) for v in shape.values() if isinstance(v, int | float) and not isinstance(v, bool)]
        return math.prod(nums) if nums else math.inf

    return min(range(len(shapes)), key=lambda i: (size(shapes[i]), i))


def _shapes(reference_py: Path) -> list[dict[str, object]]:
    from kernelopt.harness.loader import load_module

    try:
        module = load_module(reference_py)
    except (Exception, SystemExit):  # the worker's own check reports a broken reference.py
        return []
    shapes = getattr(module, "SHAPES", None)
    return [s for s in shapes if isinstance(s, dict)] if isinstance(shapes, list) else []


def run_candidates(job: CandidateJob, progress: ProgressWriter) -> None:
    """Check or time each kernel of ``job`` in this process, appending one result line per kernel."""
    from kernelopt.harness.worker import run_job

    case = job.case
    if case is None and job.mode is JobMode.CHECK:
        case = small_case(_shapes(Path(job.reference_py)))
    if case is None and job.mode is JobMode.BENCH:
        case = 0
    results = Path(job.results_path)
    for source in job.kernels:
        progress.emit("candidate", label=source.label)
        sub = WorkerJob(
            mode=job.mode,
            reference_py=job.reference_py,
            kernels=[source],
            device=job.device,
            cases=[case] if case is not None else None,
            seeds=1,
            dtype_hint=job.dtype_hint,
            case_timeout_s=job.case_timeout_s,
            bench=job.bench,
            progress_path=job.progress_path,
            result_path=str(results.parent / "unused.json"),
        )
        result = run_job(sub, progress)
        bench = None
        if job.then_bench and job.mode is JobMode.CHECK and result.failure is None:
            timing = sub.model_copy(update={"mode": JobMode.BENCH, "cases": [0]})
            bench = run_job(timing, progress)
        with open(results, "a", encoding="utf-8") as fh:
            fh.write(_Line(label=source.label, result=result, bench=bench).model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def main(argv: list[str]) -> int:
    """``python -m kernelopt.harness.candidates JOB.json``; returns the exit code."""
    die_with_parent()
    from kernelopt.harness.worker import DeviceUnavailable

    if len(argv) != 1:
        sys.stderr.write("usage: python -m kernelopt.harness.candidates JOB.json\n")
        return 2
    job = CandidateJob.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    progress = ProgressWriter(Path(job.progress_path), time.monotonic)
    progress.phase(Phase.STARTUP)
    try:
        run_candidates(job, progress)
    except DeviceUnavailable as exc:
        sys.stderr.write(f"kernelopt candidate worker: {exc}\n")
        return EXIT_ENVIRONMENT
    progress.phase(Phase.DONE)
    progress.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
