"""Stage 4: correctness, timing, utilization, comparison with the previous version, ISA targets, the gate.

Library entry points (orchestrator side; torch is only ever imported by the worker processes):

- :func:`check_correctness` -- Stage 3's "run correctness at once" and the first part of Stage 4;
- :func:`validate` -- the whole gate of one version; writes ``performance``, ``correctness``,
  ``isa_metric_progress`` and ``quality_gate`` into ``memory/v<N>.json`` and nothing else in the
  workspace (raw timing samples go to the untracked ``.kernelopt/gate/v<N>/``);
- :func:`check_files` / :func:`bench_files` -- the same on plain paths (used by ``test_kernel.py``).

Each run gets a fresh worker process (see :mod:`kernelopt.harness.runner`), and each kernel version
its own build folder ``.kernelopt/build/<label>-<sha256[:12]>/`` (Triton cache and torch extension
builds), so compiled code of another version or another source is never reused.
"""

from __future__ import annotations

import errno
import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from kernelopt.digits import sig, times
from kernelopt.errors import (
    EnvironmentProblem,
    GitError,
    RecordError,
    UsageError,
    disk_problem,
    disk_problem_in,
)
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SummaryError, read_summary
from kernelopt.fileio import atomic_write_bytes, atomic_write_text
from kernelopt.hardware.gpu import runs_on_cpu
from kernelopt.harness.decision import Decision, decide
from kernelopt.harness.hints import Hint, failure_class, hint_fits
from kernelopt.harness.interpreter import INTERPRETER_LIMIT_ENV, child_limit
from kernelopt.harness.isa import IsaRegression, isa_progress, severe_regressions
from kernelopt.harness.model import (
    COMPILED_REFERENCE_LABEL,
    REFERENCE_LABEL,
    BenchReport,
    BenchSettings,
    CaseBench,
    CaseTiming,
    CorrectnessReport,
    Culprit,
    JobMode,
    KernelSource,
    RunOutcome,
    TimingMethod,
    VersionTiming,
    WorkerJob,
    WorkerResult,
)
from kernelopt.harness.poison import MALLOC_PERTURB
from kernelopt.harness.progress import CHECK_LIMIT_FACTOR, Limits
from kernelopt.harness.roofline import gpu_spec, roofline_bounds
from kernelopt.harness.runner import new_run_dir, run_worker, signal_name, worker_env
from kernelopt.harness.settings import HarnessSettings
from kernelopt.harness.sizes import (
    SIZES_FILE,
    ChosenSizes,
    SizePlan,
    SizeScaleError,
    SizeValue,
    card_sizes,
    chosen_plan,
    size_candidates,
    sizes_key,
)
from kernelopt.harness.stats import (
    SampleStats,
    SpeedupEstimate,
    Verdict,
    compare_retimed,
    summarize,
    too_wide,
)
from kernelopt.harness.unrunnable import unrunnable_entry
from kernelopt.harness.worker import DEVICE_UNAVAILABLE_PREFIX, EXIT_ENVIRONMENT
from kernelopt.kernelsource import INTERPRETER_MAX_SIZE_TEXT, runs_in_interpreter
from kernelopt.memory.model import (
    Comparison,
    Correctness,
    CorrectnessStatus,
    GateResult,
    IsaMetricProgress,
    IterationRecord,
    Performance,
    QualityGate,
    ReferenceSpeedup,
    RooflineBounds,
    version_label,
)
from kernelopt.oneline import last_line
from kernelopt.planning.plan import Plan
from kernelopt.taskcard import TaskCard
from kernelopt.utilization import Utilization, compute_utilization
from kernelopt.workspace import KERNEL_BYTES_REF, Workspace

PROTECTED_FILES = ("kernel.py", "reference.py", "test_kernel.py")


class GateReport(BaseModel):
    """The outcome of Stage 4 for one version.

    Attributes:
        result: PASS / FAIL / TIMEOUT_FAIL.
        failure_reason: one line, ``None`` on PASS.
        latency_us: median latency of the primary case (SHAPES[0]), microseconds.
        roofline_utilization_pct: % of the roofline bound for this problem size (measured ceilings when
            cached, else the spec sheet); ``None`` when unknown or above 100 % (an accounting error).
        speedup_vs_previous: previous latency / this latency from the interleaved comparison.
        speedup_vs_reference: reference (PyTorch eager) latency / this latency, timed interleaved.
        speedup_vs_compiled: ``torch.compile(reference)`` latency / this latency, when asked.
        reference_latency_us: median latency of the reference (eager), microseconds.
        record: the memory record as written.
        version: N.
        previous: the version compared with, if any.
        correctness: the correctness report.
        bench: the timing report (``None`` when correctness failed).
        utilization_spec: utilization against the spec sheet's peaks.
        utilization_measured: utilization against the measured ceilings.
        isa_regressions: severe ISA regressions found.
        notes: exceptions the gate accepted (enabling step) and other remarks.
        warnings: noise and accounting warnings.
        record_path: path of ``memory/v<N>.json``.
        sizes: the problem's sizes when the task card or a size scale changed them: what was scaled (from ->
            to), what was kept and why (:class:`~kernelopt.harness.sizes.SizePlan`).
    """

    result: GateResult
    failure_reason: str | None = None
    latency_us: float | None = None
    roofline_utilization_pct: float | None = None
    speedup_vs_previous: float | None = None
    speedup_vs_reference: float | None = None
    speedup_vs_compiled: float | None = None
    reference_latency_us: float | None = None
    record: IterationRecord
    version: int
    previous: int | None = None
    correctness: CorrectnessReport
    bench: BenchReport | None = None
    utilization_spec: Utilization | None = None
    utilization_measured: Utilization | None = None
    isa_regressions: list[IsaRegression] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    record_path: str | None = None
    sizes: SizePlan | None = None

    @property
    def problem_failed(self) -> bool:
        """reference.py itself failed (raised, or its Model or inputs could not be built): an ERROR of the
        problem, never a FAIL of the kernel (issue 34)."""
        return culprit_of(self.correctness, self.bench) is Culprit.PROBLEM

    @property
    def checker_failed(self) -> bool:
        """The check itself could not run (it does not fit in the device's memory beside the kernel, or the
        checker's own work ran past its limit): an ERROR, never a FAIL of the kernel (:attr:`Culprit.CHECKER`)."""
        return culprit_of(self.correctness, self.bench) is Culprit.CHECKER


def _culprit_value(correctness: CorrectnessReport, bench: BenchReport | None) -> str:
    """The record's ``quality_gate.culprit`` of a version that did not pass (the kernel's unless shown otherwise)."""
    return (culprit_of(correctness, bench) or Culprit.KERNEL).value


def culprit_of(correctness: CorrectnessReport, bench: BenchReport | None) -> Culprit | None:
    """Whose code failed: the correctness run's culprit, else the timing run's; ``None`` when both passed."""
    if not correctness.passed:
        return correctness.culprit
    if bench is not None and not bench.ok:
        return bench.culprit
    return None


# -- helpers -----------------------------------------------------------------------------------


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


BUILD_FOLDER = "build"
"""The folder of a workspace's ``.kernelopt/`` that holds each checked source's compiled code (:func:`build_dir`)."""

CHECK_LABEL = "check"
"""The label of Stage 3's check (:func:`check_correctness`, ``python test_kernel.py``) in its build folder's name."""


def build_dir(state_dir: Path, label: str, kernel_py: Path) -> Path:
    """``<state>/build/<label>-<sha256 of kernel.py, 12 hex>/``: compiled code of exactly this source."""
    digest = (_sha256(kernel_py) or "missing")[:12]
    return state_dir / BUILD_FOLDER / f"{label}-{digest}"


def limits_of(settings: HarnessSettings) -> Limits:
    return Limits(
        startup_s=settings.startup_timeout_s,
        compile_s=settings.compile_timeout_s,
        case_s=settings.case_timeout_s,
        run_s=max(settings.run_timeout_s, settings.case_timeout_s),
        check_s=CHECK_LIMIT_FACTOR * settings.case_timeout_s,
    )


def _where(outcome: RunOutcome) -> str:
    if outcome.last_where:
        return outcome.last_where
    if outcome.last_case is not None:
        return f"case {outcome.last_case} ({outcome.last_label or 'default'})"
    return {"load": "loading kernel.py", "reference": "importing reference.py", "startup": "worker start-up"}.get(
        outcome.last_phase or "", "the worker"
    )


def _crash(outcome: RunOutcome) -> tuple[str, str]:
    """(message, error class) of a worker that died without writing a result."""
    sig = signal_name(outcome.returncode)
    if sig is not None:
        meaning = {
            "SIGSEGV": "segmentation fault",
            "SIGBUS": "bus error",
            "SIGABRT": "abort",
            "SIGKILL": "killed, possibly out of host memory",
            "SIGFPE": "arithmetic fault",
            "SIGILL": "illegal instruction",
        }.get(sig, "signal")
        return f"{_where(outcome)}: the worker crashed with {sig} ({meaning})", sig
    last = last_line(outcome.stderr_tail or "", 300)
    detail = f": {last}" if last else ""
    return f"{_where(outcome)}: the worker exited with code {outcome.returncode} without a result{detail}", (
        f"exit {outcome.returncode}"
    )


def _run(
    mode: JobMode,
    *,
    kernels: list[KernelSource],
    reference_py: Path,
    state_dir: Path,
    settings: HarnessSettings,
    cases: list[int] | None,
    dtype_hint: str | None,
    bench: BenchSettings | None = None,
    constants: dict[str, SizeValue] | None = None,
    size_candidates: list[dict[str, SizeValue]] | None = None,
) -> RunOutcome:
    run_dir = new_run_dir(state_dir, mode.value)
    job = WorkerJob(
        mode=mode,
        reference_py=str(reference_py),
        kernels=kernels,
        device=settings.device,
        cases=cases,
        seeds=settings.seeds,
        dtype_hint=dtype_hint,
        case_timeout_s=settings.case_timeout_s,
        run_timeout_s=limits_of(settings).run_s,
        bench=bench or BenchSettings(seconds_per_case=settings.bench_seconds),
        progress_path=str(run_dir / "progress.jsonl"),
        result_path=str(run_dir / "result.json"),
        constants=constants or {},
        size_candidates=size_candidates or [],
    )
    extra = {"KERNELOPT_WORKER": "1"}
    if mode is JobMode.CHECK:
        extra["MALLOC_PERTURB_"] = MALLOC_PERTURB  # poison host allocations (see harness.inputs)
    # no device asked on a machine with no GPU driver: the worker runs on the CPU, and gets a CPU worker's
    # environment (one thread: the timing was bimodal, up to a scheduler slice per call, without it)
    device = settings.device or ("cpu" if runs_on_cpu("auto") else None)
    limits = limits_of(settings)
    # a launch of Triton's interpreter longer than any limit of the run stops in one line (never one that fits)
    finite = [t for t in (limits.case_s, limits.run_s, limits.check_s) if math.isfinite(t)]
    if finite:
        extra[INTERPRETER_LIMIT_ENV] = child_limit(max(finite))
    env = worker_env(None, extra, device=device)
    try:
        outcome = run_worker(job, limits=limits, run_dir=run_dir, env=env, cwd=reference_py.parent)
    except OSError as exc:
        raise disk_problem(exc) or EnvironmentProblem(f"cannot start the harness worker: {exc}") from None
    if outcome.result is None and outcome.returncode == EXIT_ENVIRONMENT and not outcome.timed_out:
        # Only the worker's own exit 3 (its marked line) is a missing device; a kernel or reference that calls
        # os._exit(3) crashed its run, and that is judged below like any other crash (never an ERROR row).
        lines = (outcome.stderr_tail or "").strip().splitlines()
        if lines and lines[-1].startswith(DEVICE_UNAVAILABLE_PREFIX):
            raise EnvironmentProblem(lines[-1])
    if outcome.result is None and not outcome.timed_out:
        # A worker that could not write its progress or result for a full (or read-only) disk says
        # nothing about the kernel: an environment error (exit 3, the loop stays resumable), never a FAIL
        # that would burn the version and mark its action as tried.
        problem = disk_problem_in(outcome.stderr_tail or "", path=str(run_dir)) or _full_disk(run_dir)
        if problem is not None:
            raise problem
    return outcome


FULL_DISK_BYTES = 64 * 1024
"""Our choice: a worker that died without a result where less than this is free died of the full disk
(its error output, written to the same disk, may be empty)."""


def _full_disk(folder: Path) -> EnvironmentProblem | None:
    """The disk-full error when the file system of ``folder`` has (almost) no space left, else ``None``."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize >= FULL_DISK_BYTES:
        return None
    return disk_problem(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder)))


def _correctness_report(outcome: RunOutcome) -> CorrectnessReport:
    report = _correctness_of(outcome)
    report.run_dir = outcome.run_dir
    return report


def _correctness_of(outcome: RunOutcome) -> CorrectnessReport:
    res = outcome.result
    if outcome.timed_out:
        return CorrectnessReport(
            passed=False,
            status=CorrectnessStatus.TIMEOUT_FAIL,
            message=outcome.timeout_message or "timed out",
            error_class="Timeout",
            culprit=outcome.timeout_culprit,
            stderr_tail=outcome.stderr_tail,
            duration_s=outcome.duration_s,
        )
    if res is None:
        message, cls = _crash(outcome)
        return CorrectnessReport(
            passed=False,
            status=CorrectnessStatus.FAIL,
            message=message,
            error_class=cls,
            culprit=outcome.crash_culprit,
            stderr_tail=outcome.stderr_tail,
            duration_s=outcome.duration_s,
        )
    rel = [c.rel_err for c in res.cases if c.rel_err is not None]
    abs_ = [c.max_abs_err for c in res.cases if c.max_abs_err is not None]
    common = dict(
        rel_err=max(rel) if rel else None,
        max_abs_err=max(abs_) if abs_ else None,
        cases=res.cases,
        device=res.device,
        device_name=res.device_name,
        duration_s=outcome.duration_s,
        warnings=res.warnings,
    )
    if res.failure is not None:
        tb = res.failure.traceback
        tail = "\n".join(tb.strip().splitlines()[-20:]) if tb else outcome.stderr_tail
        return CorrectnessReport(
            passed=False,
            status=CorrectnessStatus.FAIL,
            message=res.failure.message,
            error_class=res.failure.error_class,
            culprit=res.failure.culprit,
            stderr_tail=tail,
            **common,
        )
    worst = max(rel) if rel else None
    seeds = max((c.seeds for c in res.cases), default=0)
    summary = f"{len(res.cases)} case(s) x {seeds} seed(s) passed on {res.device}" + (
        f", max rel_err {worst:.3g}" if worst is not None else ""
    )
    return CorrectnessReport(passed=True, status=CorrectnessStatus.PASS, message=summary, **common)


def method_line(method: TimingMethod, launches_per_sample: int, samples: int, l2_flushed: bool) -> str:
    """How one callable's samples were taken, the one wording of a record's ``timing_method`` and the reference's
    (``cuda_graph, 10 launch(es)/sample, 400 samples, L2 flushed before each sample``)."""
    flushed = ", L2 flushed before each sample" if l2_flushed else ""
    return f"{method.value}, {launches_per_sample} launch(es)/sample, {samples} samples{flushed}"


def _method_of(t: CaseTiming, label: str) -> str | None:
    """:func:`method_line` of the callable ``label`` of case ``t`` (``None``: not timed)."""
    v = next((v for v in t.versions if v.label == label), None)
    return None if v is None else method_line(v.method, v.launches_per_sample, len(v.samples_us), v.l2_flushed)


def _against(
    t: CaseTiming, label: str, current: str, current_us: list[float], min_gain_pct: float
) -> tuple[SampleStats | None, SpeedupEstimate | None]:
    """Statistics of the reference timing ``label`` of case ``t`` and its interleaved speedup estimate."""
    ref = next((v for v in t.versions if v.label == label), None)
    if ref is None or len(ref.samples_us) != len(current_us):
        return None, None
    cur = next(v for v in t.versions if v.label == current)
    return summarize(ref.samples_us), _retimed(ref, cur, min_gain_pct)


def _retimed(a: VersionTiming, b: VersionTiming, min_gain_pct: float) -> SpeedupEstimate:
    """B's speedup over A by the one claim rule: their first interleaved timing, a claim kept only when their
    re-time repeats it (:func:`~kernelopt.harness.stats.compare_retimed`)."""
    return compare_retimed(a.samples_us, b.samples_us, a.retime_samples_us, b.retime_samples_us, min_gain_pct)


def _bench_report(outcome: RunOutcome, *, current: str, previous: str | None, min_gain_pct: float) -> BenchReport:
    failed = _bench_failure(outcome)
    if failed is not None:
        return failed
    res = outcome.result
    assert res is not None
    cases = [_case_bench(t, current, previous, min_gain_pct) for t in res.timings]
    compared = any(c.previous is not None for c in cases)
    return BenchReport(
        ok=True,
        status=CorrectnessStatus.PASS,
        device=res.device,
        device_name=res.device_name,
        cases=cases,
        previous_label=previous if compared else None,
        warnings=res.warnings,
    )


def _bench_failure(outcome: RunOutcome) -> BenchReport | None:
    """The report of a timing run that gave no timings (timed out, crashed, or failed); None when it did."""
    res = outcome.result
    if outcome.timed_out:
        return BenchReport(
            ok=False,
            status=CorrectnessStatus.TIMEOUT_FAIL,
            message=outcome.timeout_message,
            error_class="Timeout",
            culprit=outcome.timeout_culprit,
            stderr_tail=outcome.stderr_tail,
        )
    if res is None:
        message, cls = _crash(outcome)
        return BenchReport(
            ok=False,
            status=CorrectnessStatus.FAIL,
            message=message,
            error_class=cls,
            culprit=outcome.crash_culprit,
            stderr_tail=outcome.stderr_tail,
        )
    if res.failure is not None:
        return BenchReport(
            ok=False,
            status=CorrectnessStatus.FAIL,
            message=res.failure.message,
            error_class=res.failure.error_class,
            culprit=res.failure.culprit,
            stderr_tail=res.failure.traceback,
            device=res.device,
            device_name=res.device_name,
            warnings=res.warnings,
        )
    return None


def _case_bench(t: CaseTiming, current: str, previous: str | None, min_gain_pct: float) -> CaseBench:
    """One case's timing: the kernel's statistics, its interleaved speedup over ``previous``, and over the
    reference (eager and compiled; a speedup too uncertain is withheld, with the reason)."""
    cur = next(v for v in t.versions if v.label == current)
    prev = next((v for v in t.versions if previous is not None and v.label == previous), None)
    cur_stats = summarize(cur.samples_us)
    warnings = [f"case {t.index} ({t.label}), {current}: {w}" for w in [*cur.warnings, *cur_stats.warnings]]
    if t.reduced is not None:
        warnings.insert(0, f"case {t.index} ({t.label}): {t.reduced}")
    prev_stats = speedup = None
    if prev is not None and t.interleaved:
        prev_stats = summarize(prev.samples_us)
        speedup = _retimed(prev, cur, min_gain_pct)
        skewed = _skewed(speedup, prev_stats.median, cur_stats.median, "the two versions' medians")
        if skewed is not None:
            speedup, why = skewed
            warnings.append(f"case {t.index} ({t.label}): {why}")
    ref = _against(t, REFERENCE_LABEL, current, cur.samples_us, min_gain_pct)
    comp = _against(t, COMPILED_REFERENCE_LABEL, current, cur.samples_us, min_gain_pct)
    withheld = []
    calibrated = []
    for what, (stats, estimate) in (("the reference", ref), ("torch.compile(reference)", comp)):
        # the reference's noise is flagged as the kernel's is, and a speedup too uncertain is withheld
        warnings += [f"case {t.index} ({t.label}), {what}: {w}" for w in (stats.warnings if stats else [])]
        # the speedup over PyTorch is calibrated by the previous version's one rule (late25 z30): the smaller of
        # its two readings, warned once here, so the report, CSV, JSON and batch table all read that figure
        skewed = None
        if stats is not None and estimate is not None:
            skewed = _skewed(estimate, stats.median, cur_stats.median, f"{what}'s and the kernel's medians")
        if skewed is not None:
            estimate, said = skewed
            warnings.append(f"case {t.index} ({t.label}), the speedup over {what}: {said}")
        calibrated.append(estimate)
        why = too_wide(estimate) if estimate is not None else None
        if why is None and estimate is not None and estimate.n_blocks < 2:
            why = "one block was timed (the case's timing was reduced to fit its limit): it gives no interval"
        if why is not None:
            warnings.append(f"case {t.index} ({t.label}): the speedup over {what} is withheld: {why}")
        withheld.append(why)
    return CaseBench(
        index=t.index,
        label=t.label,
        current=cur_stats,
        previous=prev_stats,
        speedup=speedup,
        method=cur.method,
        launches_per_sample=cur.launches_per_sample,
        l2_flushed=cur.l2_flushed,
        flops=t.flops,
        bytes_moved=t.bytes_moved,
        bytes_source=t.bytes_source,
        output_dtype=t.output_dtype,
        warnings=warnings,
        reference=ref[0],
        reference_speedup=calibrated[0],
        compiled=comp[0],
        compiled_speedup=calibrated[1],
        reference_withheld=withheld[0],
        compiled_withheld=withheld[1],
        reference_compile_s=t.reference_compile_s,
        reference_compile_error=t.reference_compile_error,
        reference_method=_method_of(t, REFERENCE_LABEL) if ref[0] is not None else None,
        compiled_method=_method_of(t, COMPILED_REFERENCE_LABEL) if comp[0] is not None else None,
    )


# -- on plain paths ------------------------------------------------------------------------------


def check_files(
    kernel_py: Path,
    reference_py: Path,
    state_dir: Path,
    *,
    label: str = "current",
    settings: HarnessSettings | None = None,
    cases: list[int] | None = None,
    dtype_hint: str | None = None,
    constants: dict[str, SizeValue] | None = None,
) -> CorrectnessReport:
    """Correctness of ``kernel_py`` against ``reference_py`` in a fresh worker.

    Args:
        kernel_py: the candidate.
        reference_py: the reference.
        state_dir: folder for run and build folders (a workspace's ``.kernelopt/``).
        label: version label, used in the build folder name.
        settings: limits and seeds (default: from the environment).
        cases: SHAPES indices to check (default all).
        dtype_hint: the task card's dtype.
        constants: module-level size constants of reference.py to set first (see :mod:`.sizes`).

    Raises:
        EnvironmentProblem: no usable Python or device.
    """
    settings = settings or HarnessSettings.from_env()
    kernel_py, reference_py, state_dir = (
        Path(kernel_py).resolve(),
        Path(reference_py).resolve(),
        Path(state_dir).resolve(),
    )
    source = KernelSource(label=label, kernel_py=str(kernel_py), build_dir=str(build_dir(state_dir, label, kernel_py)))
    outcome = _run(
        JobMode.CHECK,
        kernels=[source],
        reference_py=reference_py,
        state_dir=state_dir,
        settings=settings,
        cases=cases,
        dtype_hint=dtype_hint,
        constants=constants,
    )
    report = _correctness_report(outcome)
    if _interpreter_timeout(report, kernel_py, settings.device):
        report.message = f"{report.message}; {INTERPRETER_HINT}"
    return report


def _interpreter_timeout(report: CorrectnessReport | BenchReport, kernel_py: Path, device: str | None) -> bool:
    """Whether ``report`` is the kernel's own timeout in Triton's interpreter (:data:`INTERPRETER_HINT` is about it;
    a reference or a checker past its limit is not: :func:`kernelopt.harness.hints.hint_fits`)."""
    if report.status is not CorrectnessStatus.TIMEOUT_FAIL or not runs_in_interpreter(kernel_py, device):
        return False
    return hint_fits(Hint.INTERPRETER, failure_class(report.error_class or "Timeout", report.culprit))


INTERPRETER_HINT = (
    "on the CPU a Triton kernel runs in Triton's interpreter, one program at a time, so its time grows with its "
    "programs and their loop steps (small tiles make many): give reference.py a SHAPES entry it can run in seconds "
    f"(of at most {INTERPRETER_MAX_SIZE_TEXT} elements, fewer where the tiles are small), or scale its size constants "
    "(the task card's size_scale, or --size-scale)"
)
"""What a check that timed out in Triton's interpreter adds to its message (a GPU-sized problem there takes
minutes to hours; the fresh-user trial of 2026-12-04 read only "the kernel hangs or is far too slow"). fresh27 f54:
``optimize``, which shows it at V0, has no ``--size-scale`` (the task card's ``size_scale`` is its way), and a
column mean of 98,304 elements in 8 x 16 tiles, far under the size named, ran past the limit there."""


def bench_files(
    kernel_py: Path,
    reference_py: Path,
    state_dir: Path,
    *,
    label: str = "current",
    previous: tuple[str, Path] | None = None,
    settings: HarnessSettings | None = None,
    cases: list[int] | None = None,
    dtype_hint: str | None = None,
    bench: BenchSettings | None = None,
    constants: dict[str, SizeValue] | None = None,
) -> tuple[BenchReport, WorkerResult | None]:
    """Time ``kernel_py`` (ABBA against ``previous`` = (label, path) when given) in a fresh worker.

    Returns:
        The report and the raw worker result (samples included), ``None`` when the worker died.
    """
    settings = settings or HarnessSettings.from_env()
    kernel_py, reference_py, state_dir = (
        Path(kernel_py).resolve(),
        Path(reference_py).resolve(),
        Path(state_dir).resolve(),
    )
    kernels = []
    if previous is not None:
        p_label, p_path = previous[0], Path(previous[1]).resolve()
        kernels.append(
            KernelSource(label=p_label, kernel_py=str(p_path), build_dir=str(build_dir(state_dir, p_label, p_path)))
        )
    kernels.append(
        KernelSource(label=label, kernel_py=str(kernel_py), build_dir=str(build_dir(state_dir, label, kernel_py)))
    )
    outcome = _run(
        JobMode.BENCH,
        kernels=kernels,
        reference_py=reference_py,
        state_dir=state_dir,
        settings=settings,
        cases=cases,
        dtype_hint=dtype_hint,
        # a claim is re-timed before it stands, at the margin the report judges by (one rule, stats.claim)
        bench=(bench or BenchSettings(seconds_per_case=settings.bench_seconds)).model_copy(
            update={"claim_margin_pct": settings.min_gain_pct}
        ),
        constants=constants,
    )
    report = _bench_report(
        outcome, current=label, previous=previous[0] if previous else None, min_gain_pct=settings.min_gain_pct
    )
    if _interpreter_timeout(report, kernel_py, settings.device):
        # a timing takes several interleaved calls of the kernel and the reference: a case whose one call takes
        # seconds there passes its check and still runs past the limit (breaker6 j5)
        report.message = (
            f"{report.message}; {INTERPRETER_HINT}, or raise the limits (TEST_TIMEOUT_SEC a case, "
            "KERNELOPT_RUN_TIMEOUT_S the run)"
        )
    return report, outcome.result


# -- on a workspace ------------------------------------------------------------------------------


def check_correctness(
    workspace: Workspace, *, device: str | None = None, timeout_s: float | None = None
) -> CorrectnessReport:
    """Run correctness of the workspace's kernel.py now (Stage 3's check after an edit).

    Args:
        workspace: the workspace.
        device: ``cuda`` / ``cpu``; default: KERNELOPT_DEVICE, else CUDA when the worker sees a GPU.
        timeout_s: per-case limit in seconds (default TEST_TIMEOUT_SEC or 30); the run limit is at
            least as long.

    Raises:
        EnvironmentProblem: no usable Python or device.
        WorkspaceError: the task card is invalid.
    """
    settings = HarnessSettings.from_env(None, device=device, case_timeout_s=timeout_s)
    card = workspace.task_card()
    return check_files(
        workspace.kernel_py,
        workspace.reference_py,
        workspace.state_dir,
        label=CHECK_LABEL,
        settings=settings,
        dtype_hint=card.dtype,
        constants=problem_constants(workspace, settings),
    )


def problem_constants(workspace: Workspace, settings: HarnessSettings) -> dict[str, SizeValue]:
    """The sizes to substitute in reference.py: the task card's ``sizes``, and ``size_scale`` (the
    setting, else the card's) applied to the others: the plan the gate chose (:func:`problem_sizes`) when it
    has run for these settings, else the plan asked for.

    Raises:
        UsageError: ``sizes`` names a constant reference.py lacks (exit 2, naming it).
        SizeScaleError: the scale can shrink nothing.
    """
    card = workspace.task_card()
    scale = settings.size_scale if settings.size_scale is not None else card.size_scale
    return card_sizes(workspace.reference_py, card, scale)


def problem_sizes(workspace: Workspace, settings: HarnessSettings) -> tuple[SizePlan | None, list[str]]:
    """The problem's sizes for this gate, and what to warn about them.

    With a size scale below 1, the plans of :func:`~kernelopt.harness.sizes.size_candidates` are tried in a
    ``size`` worker run (reference.py imported with each, the model and inputs built, the reference run
    once) and the first that runs is kept in ``.kernelopt/sizes.json`` for every later run with these
    settings. ``None``: neither sizes nor a scale is asked.

    Raises:
        UsageError: ``sizes`` names a constant reference.py lacks; or reference.py as written does not import,
            or its model cannot be built at any size (exit 2; one line, the reason, worded as the check's
            reference failures are).
        SizeScaleError: no scale shrinks the problem and keeps it running (the rule or the reference's error).
        EnvironmentProblem: no usable Python or device.
    """
    card = workspace.task_card()
    scale = settings.size_scale if settings.size_scale is not None else card.size_scale
    if not card.sizes and scale is None:
        return None, []
    key = sizes_key(workspace.reference_py, card.sizes, scale)
    chosen = chosen_plan(workspace.state_dir, key)
    candidates = (
        [chosen] if chosen is not None else size_candidates(workspace.reference_py, sizes=card.sizes, scale=scale)
    )
    if chosen is not None or scale is None or scale >= 1:
        plan = candidates[0]
        return (plan, [_changed(plan)]) if plan.constants else (None, [])  # x1 changes nothing: nothing to say
    state = workspace.state_dir.resolve()
    kernel_py = str(workspace.kernel_py.resolve())
    source = KernelSource(label="sizes", kernel_py=kernel_py, build_dir=str(state / BUILD_FOLDER))
    outcome = _run(
        JobMode.SIZE,
        kernels=[source],
        reference_py=workspace.reference_py.resolve(),
        state_dir=state,
        settings=settings,
        cases=None,
        dtype_hint=card.dtype,
        size_candidates=[c.constants for c in candidates],
    )
    plan = _sizes_outcome(workspace, outcome, candidates, scale)
    atomic_write_text(workspace.state_dir / SIZES_FILE, ChosenSizes(key=key, plan=plan).model_dump_json(indent=1))
    warnings = [_changed(plan)]
    failures = outcome.result.size_failures if outcome.result is not None else []
    if failures and plan is not candidates[0]:
        warnings.append(
            f"the sizes asked for (x{scale:g}) broke the problem ({failures[0]}); ran with the nearest that runs"
        )
    return plan, warnings


def _changed(plan: SizePlan) -> str:
    return f"problem sizes changed from reference.py: {plan.line()}"


def _sizes_outcome(workspace: Workspace, outcome: RunOutcome, candidates: list[SizePlan], scale: float) -> SizePlan:
    """The plan the ``size`` run chose, or the error that says why none."""
    result = outcome.result
    name = workspace.reference_py.name
    if result is None:
        why = outcome.timeout_message if outcome.timed_out else last_line(outcome.stderr_tail or "", 300) or "no result"
        raise SizeScaleError(f"no size scale could be tried on {name}: the reference's run {why}")
    if result.failure is not None:  # reference.py as written does not import
        raise UsageError(f"the problem's reference failed: {result.failure.message}")
    if result.size_choice is not None:
        return candidates[result.size_choice]
    first, last = result.size_failures[:1], result.size_failures[-1:]
    tried = f"x{scale:g}: {first[0] if first else 'no result'}"
    if len(result.size_failures) > 1:
        biggest = candidates[len(result.size_failures) - 1]
        tried += f"; the largest tried, x{biggest.scale:g}: {last[0]}"
    raise SizeScaleError(
        f"no size scale keeps {name} valid ({tried})",
        hint="run it at full size (no --size-scale), or give its sizes in the task card (sizes:)",
    )


def _previous_kernel(ws: Workspace, previous: int, dest_dir: Path) -> tuple[Path | None, str]:
    """Write the previous version's kernel.py (from its commit, else HEAD) to ``dest_dir``; (path, origin)."""
    commit: str | None = None
    origin = ""
    try:
        rec = ws.memory.read(previous)
        commit = rec.git_commit_hash
    except RecordError:
        origin = f"no record v{previous}; "
    text: bytes | None = None
    for ref, where in ((commit, f" (memory/v{previous}.json git_commit_hash)"), ("HEAD", "")):
        if not ref:
            continue
        try:
            text = ws.kernel_at(ref, previous)
        except GitError:
            origin += f"commit {ref[:12]} not found; " if ref != "HEAD" else "no committed kernel.py"
            continue
        origin += f"kernel.py at {ref[:12]}{where}"
        if text is None:  # git holds the path the user's link names, never Python to load
            kept = KERNEL_BYTES_REF.format(n=previous)
            return None, f"{origin} is a link, and no bytes of v{previous} were kept ({kept})"
        break
    if text is None:
        return None, origin
    path = dest_dir / f"previous_v{previous}_kernel.py"
    atomic_write_bytes(path, text if text.endswith(b"\n") else text + b"\n")  # its bytes: its encoding kept
    return path, origin


def _load_summary(path: Path) -> ProfileSummary | None:
    if not (path / "summary.json").is_file():
        return None
    try:
        return read_summary(path)
    except SummaryError:
        return None


def compute_dtype(dtype_hint: str | None, primary: CaseBench) -> str | None:
    """The dtype of the compute roof: the task card's, else the first output's (normalized), else None."""
    from kernelopt.hardware.specs import normalize_dtype

    for raw in (dtype_hint, primary.output_dtype):
        if raw:
            try:
                return normalize_dtype(raw)
            except UsageError:
                continue
    return None


def _utilization(
    bench: BenchReport, *, gpu_hint: str | None, dtype_hint: str | None, warnings: list[str]
) -> tuple[Utilization | None, Utilization | None, str | None]:
    """(against the spec sheet, against measured ceilings, basis of the roofline figure)."""
    from kernelopt.hardware.ceilings import cached_ceilings
    from kernelopt.hardware.specs import lookup

    primary = bench.primary()
    if primary is None or primary.current.median <= 0:
        return None, None, None
    latency = primary.current.median
    dtype = compute_dtype(dtype_hint, primary)
    flops, nbytes = primary.flops, primary.bytes_moved
    if not (bench.device or "").startswith("cuda"):
        plain = compute_utilization(
            latency_us=latency, flops=flops, bytes_moved=nbytes, peak_tflops=None, peak_gbps=None
        )
        return plain, None, None
    spec, _ = gpu_spec(bench.device_name, gpu_hint)
    if spec is None:
        warnings.append(f"no spec sheet for GPU {bench.device_name or gpu_hint!r}: % of peak unknown")
    elif gpu_hint and bench.device_name:
        try:
            if lookup(gpu_hint).id != spec.id:
                warnings.append(f"task card says gpu {gpu_hint!r} but the kernel ran on {bench.device_name!r}")
        except UsageError:
            pass
    peak_t = peak_b = None
    if spec is not None:
        peak_b = spec.memory_bandwidth_gbps
        if dtype is not None:
            try:
                peak_t = spec.peak_tflops(dtype)
            except UsageError:
                peak_t = None
    u_spec = compute_utilization(
        latency_us=latency, flops=flops, bytes_moved=nbytes, peak_tflops=peak_t, peak_gbps=peak_b
    )
    ceil = cached_ceilings(bench.device_name)
    u_meas = None
    basis = f"spec sheet {spec.id}" if spec is not None else None
    if ceil is not None:
        u_meas = compute_utilization(
            latency_us=latency,
            flops=flops,
            bytes_moved=nbytes,
            peak_tflops=ceil.matmul_tflops.get(dtype) if dtype else None,
            peak_gbps=ceil.memory_gbps,
        )
        basis = f"measured ceilings of {ceil.gpu_name} ({ceil.measured_at:%Y-%m-%d}, kernelopt ceilings)"
    else:
        warnings.append("no measured ceilings cached for this GPU: run `kernelopt ceilings`; using the spec sheet")
    return u_spec, u_meas, basis


def _bounds(
    primary: CaseBench | None, bench: BenchReport | None, *, card_gpu: str | None, dtype_hint: str | None
) -> RooflineBounds | None:
    """Both roofline bounds of this version, computed here once; the stop check and reports read them."""
    from kernelopt.hardware.ceilings import cached_ceilings

    if bench is None or primary is None or primary.current.median <= 0:
        return None
    if not (bench.device or "").startswith("cuda"):
        note = "timed on the CPU: no GPU roofline applies"
        return RooflineBounds(measured_note=note, spec_note=note)
    spec, missing = gpu_spec(bench.device_name, card_gpu)
    work = Performance(latency_us=primary.current.median, flops=primary.flops, bytes_moved=primary.bytes_moved)
    return roofline_bounds(
        work,
        spec=spec,
        spec_missing=missing,
        dtype=compute_dtype(dtype_hint, primary),
        ceilings=cached_ceilings(bench.device_name or card_gpu),
    )


def _pct_change(new: float | None, old: float | None) -> float | None:
    if new is None or old is None or old == 0:
        return None
    return 100.0 * (new - old) / old


def validate(
    workspace: Workspace,
    version: int,
    *,
    previous: int | None,
    plan: Plan | None = None,
    device: str | None = None,
    enabling_step: bool = False,
    scratch: bool = False,
    compile_reference: bool | None = None,
    size_scale: float | None = None,
    baseline: bool = False,
) -> GateReport:
    """Stage 4 for ``version``: correctness, timing (ABBA against ``previous``), utilization, ISA, the gate.

    Writes ``performance``, ``correctness``, ``isa_metric_progress`` and ``quality_gate`` of
    ``memory/v<version>.json`` (created when missing) and never touches kernel.py (its hash is checked
    before and after; a change fails the gate).

    Args:
        workspace: the workspace.
        version: N, the version being validated (the workspace's current kernel.py).
        previous: the version to compare with (its kernel.py from the commit in its record, else
            HEAD's), ``None`` for the baseline V0.
        plan: this iteration's plan (``enabling_step`` lets a declared regression pass).
        device: ``cuda`` / ``cpu``; default KERNELOPT_DEVICE, else CUDA when present.
        enabling_step: declare the change an enabling step without a plan (``--enabling-step``).
        scratch: leave ``memory/`` alone and write the record to ``.kernelopt/validate/v<N>.json``
            instead (stand-alone ``kernelopt validate``: only the loop writes records).
        compile_reference: also time ``torch.compile(reference)`` (default: KERNELOPT_COMPILE_REFERENCE,
            else the task card's ``compile_reference``).
        size_scale: scale reference.py's size constants for a quick run (default: KERNELOPT_SIZE_SCALE,
            else the task card's ``size_scale``); the card's ``sizes`` apply either way.
        baseline: ``version`` is the kernel as the user wrote it, the start of a run (the loop's V0): a ``SHAPES``
            entry it raises at while it runs another is the problem's entry (:mod:`kernelopt.harness.unrunnable`),
            not the kernel's FAIL. Off for a kernel being judged (``validate``, ``batch``'s rows).

    Raises:
        EnvironmentProblem: no usable Python or device.
        RecordError: the existing record cannot be read.
        WorkspaceError: invalid task card.
    """
    _check_versions(version, previous)
    settings = HarnessSettings.from_env(None, device=device, compile_reference=compile_reference, size_scale=size_scale)
    g = _Gating.start(workspace, version, settings)
    correctness = _correctness(g, baseline=baseline and version == 0)
    bench, previous_used = _timing(g, previous) if correctness.passed else (None, None)
    primary = bench.primary() if bench is not None and bench.ok else None
    speedup = primary.speedup if primary is not None else None
    u_spec, u_meas, basis = _utilizations(g, bench, primary)
    progress, regressions = _isa(g, previous)
    decision = _decide(
        g, correctness, bench, regressions, enabling_step=enabling_step or bool(plan and plan.enabling_step)
    )
    perf, roof_util = _measured(g, bench, primary, u_spec, u_meas, basis)
    record, record_path = _write_record(
        workspace,
        version,
        perf,
        correctness,
        progress,
        QualityGate(
            result=decision.result,
            failure_reason=decision.failure_reason,
            culprit=None if decision.result is GateResult.PASS else _culprit_value(correctness, bench),
        ),
        scratch=scratch,
    )
    ref_speedup = perf.speedup_vs_reference
    return GateReport(
        result=decision.result,
        failure_reason=decision.failure_reason,
        latency_us=perf.latency_us,
        roofline_utilization_pct=roof_util,
        speedup_vs_previous=speedup.speedup if speedup is not None else None,
        speedup_vs_reference=ref_speedup.eager if ref_speedup is not None else None,
        speedup_vs_compiled=ref_speedup.compiled if ref_speedup is not None else None,
        reference_latency_us=ref_speedup.eager_latency_us if ref_speedup is not None else None,
        record=record,
        version=version,
        previous=previous_used,
        correctness=correctness,
        bench=bench,
        utilization_spec=u_spec,
        utilization_measured=u_meas,
        isa_regressions=regressions,
        notes=decision.notes,
        warnings=list(dict.fromkeys(g.warnings)),
        record_path=str(record_path),
        sizes=g.sizes,
    )


def _check_versions(version: int, previous: int | None) -> None:
    if version < 0:
        raise UsageError(f"version must be >= 0, got {version}")
    if previous is not None and previous < 0:  # -2 compared with HEAD's kernel.py, labelled v-2
        raise UsageError(f"previous version must be >= 0, got {previous}")
    if previous is not None and previous >= version:
        raise UsageError(f"previous version v{previous} must be older than v{version}")


def _decide(
    g: _Gating,
    correctness: CorrectnessReport,
    bench: BenchReport | None,
    regressions: list[IsaRegression],
    *,
    enabling_step: bool,
) -> Decision:
    """The gate's verdict (:func:`kernelopt.harness.decision.decide`) from what was measured."""
    primary = bench.primary() if bench is not None and bench.ok else None
    return decide(
        correctness_status=correctness.status,
        correctness_message=correctness.message,
        timing_status=bench.status if bench is not None else None,
        timing_message=bench.message if bench is not None else None,
        speedup=primary.speedup if primary is not None else None,
        enabling_step=enabling_step,
        isa_regressions=regressions,
        modified_files=g.modified(),
    )


@dataclass
class _Gating:
    """One gate run: its version, settings and problem sizes, and the warnings it gathers on the way."""

    workspace: Workspace
    version: int
    label: str
    gate_dir: Path
    settings: HarnessSettings
    card: TaskCard
    sizes: SizePlan | None
    protected: dict[str, str | None]
    warnings: list[str] = field(default_factory=list)

    @property
    def constants(self) -> dict[str, SizeValue]:
        return dict(self.sizes.constants) if self.sizes is not None else {}

    @classmethod
    def start(cls, workspace: Workspace, version: int, settings: HarnessSettings) -> _Gating:
        card = workspace.task_card()
        label = version_label(version)
        gate_dir = workspace.state_dir / "gate" / label
        protected = {name: _sha256(workspace.root / name) for name in PROTECTED_FILES}
        gate_dir.mkdir(parents=True, exist_ok=True)
        sizes, warnings = problem_sizes(workspace, settings)
        return cls(workspace, version, label, gate_dir, settings, card, sizes, protected, warnings)

    def modified(self) -> list[str]:
        """The protected files whose content changed since the gate started (a change fails it)."""
        return [name for name in PROTECTED_FILES if self.protected[name] != _sha256(self.workspace.root / name)]


def _correctness(g: _Gating, *, baseline: bool = False) -> CorrectnessReport:
    """The correctness check of the workspace's kernel.py (at the gate's problem sizes); for a ``baseline`` an entry
    it cannot run while it runs another is the problem's (:func:`~kernelopt.harness.unrunnable.unrunnable_entry`)."""
    correctness = _recheck(g, None)
    g.warnings += correctness.warnings
    if baseline:  # the kernel as written, to be optimized: an entry it cannot run is the problem's (r11)
        correctness = unrunnable_entry(
            correctness, _entries_to_run(g, correctness.device), lambda cases: _recheck(g, cases)
        )
    return correctness


def _entries_to_run(g: _Gating, device: str | None) -> list[int]:
    """The ``SHAPES`` entries a check on ``device`` runs, by index (those Triton's interpreter runs in seconds when it
    runs there and the task card sets no size; none when ``SHAPES`` is built by code, which the text does not tell)."""
    from kernelopt.kernelsource import interpreted_cases, written_entries

    entries = written_entries(g.workspace.reference_py)
    interpreted = runs_in_interpreter(g.workspace.kernel_py, device or g.settings.device) and not g.constants
    return interpreted_cases(entries) if interpreted else list(range(len(entries)))


def _recheck(g: _Gating, cases: list[int] | None) -> CorrectnessReport:
    """The check of the workspace's kernel.py on ``cases`` alone, or on every entry when ``None`` (the warnings of a
    recheck are said by the first check)."""
    ws = g.workspace
    return check_files(
        ws.kernel_py,
        ws.reference_py,
        ws.state_dir,
        label=g.label,
        settings=g.settings,
        cases=cases,
        dtype_hint=g.card.dtype,
        constants=g.constants,
    )


def _timing(g: _Gating, previous: int | None) -> tuple[BenchReport, int | None]:
    """Time the kernel (ABBA against ``previous``'s kernel.py when it is found) and the reference; the
    samples go to ``timing.json``. Returns the report and the version it was compared with."""
    ws, card, settings = g.workspace, g.card, g.settings
    prev_source = None
    previous_used: int | None = None
    if previous is not None:
        prev_path, origin = _previous_kernel(ws, previous, g.gate_dir)
        if prev_path is None:
            g.warnings.append(f"no comparison with v{previous}: {origin}")
        else:
            prev_source = (version_label(previous), prev_path)
            previous_used = previous
    timing_plan = BenchSettings(
        seconds_per_case=settings.bench_seconds,
        time_reference=True,
        compile_reference=card.compile_reference if settings.compile_reference is None else settings.compile_reference,
        compile_backend=settings.compile_backend,
        compile_mode=settings.compile_mode,
    )
    bench, raw = bench_files(
        ws.kernel_py,
        ws.reference_py,
        ws.state_dir,
        label=g.label,
        previous=prev_source,
        settings=settings,
        dtype_hint=card.dtype,
        bench=timing_plan,
        constants=g.constants,
    )
    if raw is not None:
        samples = g.gate_dir / "timing.json"
        atomic_write_text(samples, raw.model_dump_json(indent=1))
        bench.samples_path = str(samples)
    g.warnings += bench.warnings
    if prev_source is not None and bench.ok and bench.previous_label is None:
        previous_used = None
    return bench, previous_used


def _utilizations(
    g: _Gating, bench: BenchReport | None, primary: CaseBench | None
) -> tuple[Utilization | None, Utilization | None, str | None]:
    """:func:`_utilization` of a timing that worked (the cases' warnings gathered first)."""
    if primary is None or bench is None:
        return None, None, None
    for c in bench.cases:
        g.warnings += c.warnings
    return _utilization(bench, gpu_hint=g.card.gpu, dtype_hint=g.card.dtype, warnings=g.warnings)


def _isa(g: _Gating, previous: int | None) -> tuple[list[IsaMetricProgress], list[IsaRegression]]:
    """The task card's ISA targets against this version's Stage 1 facts, and the severe ISA regressions
    since ``previous``'s."""
    current = _load_summary(g.workspace.profile_dir(g.version))
    before = _load_summary(g.workspace.profile_dir(previous)) if previous is not None else None
    return isa_progress(g.card.isa_targets, current), severe_regressions(before, current)


def _measured(
    g: _Gating,
    bench: BenchReport | None,
    primary: CaseBench | None,
    u_spec: Utilization | None,
    u_meas: Utilization | None,
    basis: str | None,
) -> tuple[Performance, float | None]:
    """The record's performance and the roofline figure of the stop check (None above 100 %)."""
    for u in (u_spec, u_meas):
        if u is not None:
            g.warnings += u.warnings
    # The roofline figure is computed once: both bounds here, the stop figure read from them.
    bounds = _bounds(primary, bench, card_gpu=g.card.gpu, dtype_hint=g.card.dtype)
    roof_util, which = bounds.stop_figure() if bounds is not None else (None, "none")
    if roof_util is not None and roof_util > 100.0:
        roof_util = None  # over 100 % is a measurement or accounting error (warning above), never a success
    if bounds is not None and roof_util is not None:
        basis = f"{which}: {bounds.measured_note if which == 'measured ceilings' else bounds.spec_note}"
    compiled_with = (g.settings.compile_backend, g.settings.compile_mode or "default")
    perf = _performance(bench, primary, u_spec, u_meas, roof_util, basis, g.warnings, compiled_with=compiled_with)
    perf.roofline = bounds
    return perf, roof_util


def _performance(
    bench: BenchReport | None,
    primary: CaseBench | None,
    u_spec: Utilization | None,
    u_meas: Utilization | None,
    roof_util: float | None,
    basis: str | None,
    warnings: list[str],
    *,
    compiled_with: tuple[str, str] | None = None,
) -> Performance:
    """The record's performance; ``compiled_with``: the backend and mode the compiled reference was built with, kept
    beside its figure (late27, z52)."""
    if bench is None or primary is None:
        return Performance()
    cur = primary.current
    u = u_spec or u_meas
    comparison = Comparison()
    if primary.speedup is not None and primary.previous is not None:
        s = primary.speedup
        # every change against the previous version is the one figure the claim is made on, `_case_bench`'s speedup
        # (the ABBA blocks' median ratio, or the smaller reading where the samples are skewed: `_skewed`): the ratio
        # of the two medians read here as well (46x on the README demo, where the blocks said 119x, interval
        # 80.5-119) was a second figure for the same comparison, outside the first's interval (claims21 w5)
        comparison = Comparison(
            latency_delta=_pct_change(1.0 / s.speedup, 1.0),
            tflops_delta=_pct_change(s.speedup, 1.0) if primary.flops is not None else None,
            bandwidth_delta=_pct_change(s.speedup, 1.0) if primary.bytes_moved is not None else None,
            speedup=s.speedup,
            speedup_ci_low=s.ci_low,
            speedup_ci_high=s.ci_high,
            speedup_p_value=s.p_value,
            speedup_effect_size_d=s.effect_size_d,
            verdict=s.verdict.value,
            speedup_retime=s.retime_speedup,
            against=bench.previous_label,
        )
    method = method_line(primary.method, primary.launches_per_sample, cur.n, primary.l2_flushed)
    return Performance(
        latency_us=cur.median,
        latency_us_by_shape={c.label: c.current.median for c in bench.cases},
        latency_iqr_us=cur.iqr,
        latency_ci_low_us=cur.ci_low,
        latency_ci_high_us=cur.ci_high,
        tflops=u.tflops if u is not None else None,
        bandwidth_gbps=u.bandwidth_gbps if u is not None else None,
        tflops_peak_utilization_pct=u_spec.tflops_pct if u_spec is not None else None,
        bandwidth_peak_utilization_pct=u_spec.bandwidth_pct if u_spec is not None else None,
        tflops_ceiling_utilization_pct=u_meas.tflops_pct if u_meas is not None else None,
        bandwidth_ceiling_utilization_pct=u_meas.bandwidth_pct if u_meas is not None else None,
        roofline_utilization_pct=roof_util,
        roofline_basis=basis if roof_util is not None else None,
        gpu=bench.device_name,
        timing_method=method,
        comparison_with_previous=comparison,
        warnings=list(dict.fromkeys(warnings)),
        flops=primary.flops,
        bytes_moved=primary.bytes_moved,
        bytes_source=primary.bytes_source,
        speedup_vs_reference=_reference_speedup(primary, compiled_with),
    )


def _skewed(
    s: SpeedupEstimate, before_us: float, current_us: float, medians_of: str
) -> tuple[SpeedupEstimate, str] | None:
    """A speedup the gate claims where its samples are skewed, and the warning that says so; ``None`` where they
    are not. One rule for every speedup the gate says: over the previous version, over the reference (PyTorch
    eager) and over torch.compile (``before_us`` the median of the one timed beside the kernel, ``medians_of``
    naming the pair in the warning). Skewed: the ratio of the two medians lies outside the interval of the ABBA
    blocks' median ratio ``s`` (on a loaded CPU the blocks' load differs, and the two readings part: the README
    demo's V1 said 90x, 95 % CI 75.5-105x, its medians 50x; late23 z21). The claim is the reading nearer 1: it never
    says more than either reading of its samples. Its interval always holds both readings, so the figure said and the
    ratio of the two medians printed beside it (the report's "PyTorch eager: 1.4 us" beside the version's 4.66 us)
    both lie inside the interval said (leftovers23 l32: "2.44x slower ..., 95 % interval 2.36-2.9x slower" beside a
    medians' 3.3x). The verdict stays the blocks' test, except where the two readings fall on either side of 1: one
    says faster, the other slower, so neither is claimed, the verdict is "no significant change" (late25 z31)."""
    if before_us <= 0 or current_us <= 0 or not math.isfinite(medians := before_us / current_us):
        return None
    if s.ci_low <= medians <= s.ci_high:
        return None
    said = f"{times(s.speedup)} (95 % CI {sig(s.ci_low, 3)}-{times(s.ci_high)})"
    split = (medians - 1.0) * (s.speedup - 1.0) < 0 and s.verdict != Verdict.NO_CHANGE
    neither = (
        f"; the two readings fall on either side of 1, so neither faster nor slower is claimed (verdict "
        f"{Verdict.NO_CHANGE.value}, where the blocks' test said {s.verdict.value})"
        if split
        else ""
    )
    verdict = Verdict.NO_CHANGE if split else s.verdict
    held = {"ci_low": min(s.ci_low, medians), "ci_high": max(s.ci_high, medians), "verdict": verdict}
    if abs(math.log(medians)) >= abs(math.log(s.speedup)):  # the blocks' median is the smaller claim
        return s.model_copy(update=held), (
            f"the samples are skewed: the ratio of {medians_of}, {times(medians)}, lies outside the interval of the "
            f"ABBA blocks' median ratio, {said}; the smaller claim, the blocks', is said (its interval widened to "
            f"hold the other){neither}"
        )
    return s.model_copy(update={**held, "speedup": medians}), (
        f"the samples are skewed: the ABBA blocks' median ratio says {said}, the ratio of {medians_of} "
        f"{times(medians)}, outside that interval; the smaller claim, {times(medians)}, is said (its interval widened "
        f"to hold it){neither}"
    )


def _reference_speedup(primary: CaseBench, compiled_with: tuple[str, str] | None = None) -> ReferenceSpeedup | None:
    """The primary case against the reference (eager, and compiled when it was timed, with the backend and mode it
    was built with: ``KERNELOPT_COMPILE_MODE`` chose the mode, and the record kept no word of it, so a figure against
    max-autotune read as one against the default; late27, z52)."""
    eager, compiled = primary.reference_speedup, primary.compiled_speedup
    if eager is None and compiled is None and primary.reference_compile_error is None:
        return None
    asked = compiled is not None or primary.reference_compile_error is not None
    backend, mode = compiled_with if compiled_with is not None and asked else (None, None)
    withheld = [w for w in (primary.reference_withheld, primary.compiled_withheld) if w is not None]
    return ReferenceSpeedup(
        eager=eager.speedup if eager is not None and primary.reference_withheld is None else None,
        eager_ci_low=eager.ci_low if eager is not None else None,
        eager_ci_high=eager.ci_high if eager is not None else None,
        eager_p_value=eager.p_value if eager is not None else None,
        eager_effect_size_d=eager.effect_size_d if eager is not None else None,
        eager_verdict=eager.verdict.value if eager is not None else None,
        eager_retime=eager.retime_speedup if eager is not None else None,
        eager_latency_us=primary.reference.median if primary.reference is not None else None,
        eager_timing_method=primary.reference_method,
        compiled=compiled.speedup if compiled is not None and primary.compiled_withheld is None else None,
        compiled_ci_low=compiled.ci_low if compiled is not None else None,
        compiled_ci_high=compiled.ci_high if compiled is not None else None,
        compiled_verdict=compiled.verdict.value if compiled is not None else None,
        compiled_latency_us=primary.compiled.median if primary.compiled is not None else None,
        compiled_timing_method=primary.compiled_method,
        compile_backend=backend,
        compile_mode=mode,
        compile_s=primary.reference_compile_s,
        compile_error=primary.reference_compile_error,
        withheld="; ".join(withheld) if withheld else None,
    )


def _write_record(
    ws: Workspace,
    version: int,
    perf: Performance,
    correctness: CorrectnessReport,
    progress: list[IsaMetricProgress],
    gate: QualityGate,
    *,
    scratch: bool,
) -> tuple[IterationRecord, Path]:
    """Update (or create) ``memory/v<N>.json`` with the gate's fields only; (record, where it was written).

    With ``scratch`` the record is written to ``.kernelopt/validate/v<N>.json`` and ``memory/`` is only read.
    """
    record = ws.memory.read(version) if ws.memory.exists(version) else IterationRecord(version=version_label(version))
    record.performance = perf
    record.correctness = Correctness(
        rel_err=correctness.rel_err,
        max_abs_err=correctness.max_abs_err,
        status=correctness.status,
        message=correctness.message,
    )
    record.isa_metric_progress = progress
    record.quality_gate = gate
    if scratch:
        path = ws.state_dir / "validate" / f"{version_label(version)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        record = IterationRecord.model_validate(record.model_dump())
        atomic_write_text(path, record.model_dump_json(indent=2) + "\n")
        return record, path
    ws.memory.write(record)
    return ws.memory.read(version), ws.memory.path(version)


__all__ = [
    "CorrectnessReport",
    "GateReport",
    "bench_files",
    "check_correctness",
    "check_files",
    "validate",
]
