"""The typed messages between the orchestrator and a harness worker, and the reports built from them.

The orchestrator (which never imports torch) writes a :class:`WorkerJob` as JSON, starts a worker
process on it, watches its progress file, and reads back a :class:`WorkerResult`. A failing candidate
is a result (``failure``), never an exception: exceptions are for our bugs and a broken environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.harness.sizes import SizeValue
from kernelopt.harness.stats import SampleStats, SpeedupEstimate
from kernelopt.harness.tolerance import Tolerance
from kernelopt.memory.model import CorrectnessStatus
from kernelopt.oneline import one_line


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: Timing label of the reference as written (PyTorch eager); kernel labels are ``v<N>``, ``current`` ...
REFERENCE_LABEL = "reference"
#: Timing label of ``torch.compile(reference)``.
COMPILED_REFERENCE_LABEL = "reference_compiled"


class JobMode(StrEnum):
    """What a worker run does: ``check`` (correctness), ``bench`` (timing), or ``load``: import reference.py
    and the kernel only (building any CUDA extension into the version's build folder) and run nothing on
    the device, so that a later check or bench finds the build ready (``kernelopt batch`` loads the next
    problem while the current one is timed)."""

    CHECK = "check"
    BENCH = "bench"
    LOAD = "load"
    SIZE = "size"
    """Try the job's ``size_candidates`` in order (:mod:`kernelopt.harness.sizes`): import reference.py with
    each, build the model and the first case's inputs and run the reference once; the first that runs is
    the choice. The kernel is not loaded."""


class TimingMethod(StrEnum):
    """How a sample was timed.

    ``cuda_graph``: CUDA events around one replay of a graph of N launches (rotating input sets);
    ``cuda_batch``: CUDA events around N back-to-back launches (graph capture failed);
    ``cuda_events``: CUDA events around one launch, L2 flushed before it outside the timed window;
    ``cpu_perf_counter``: ``time.perf_counter`` around N calls (CPU path, for tests without a GPU).
    """

    CUDA_GRAPH = "cuda_graph"
    CUDA_BATCH = "cuda_batch"
    CUDA_EVENTS = "cuda_events"
    CPU_PERF_COUNTER = "cpu_perf_counter"


class KernelSource(_Model):
    """One kernel version to load in a worker.

    Attributes:
        label: ``v3``, ``current``, ...
        kernel_py: path of the kernel file.
        build_dir: folder for its compiled code (``triton/`` and ``torch_extensions/`` inside), unique per
            version and source so stale compiled code is never reused.
    """

    label: str
    kernel_py: str
    build_dir: str


class BenchSettings(_Model):
    """Timing plan of a bench job.

    Attributes:
        seconds_per_case: measurement time per case and version, seconds (warm-up not included).
        min_blocks: fewest ABBA blocks (or pairs of samples for one version).
        max_blocks: most blocks.
        l2_flush: flush the L2 cache before each timed sample (outside the timed window).
        rotate_inputs: cycle through several input sets so small inputs are not served from L2.
        graph_below_us: kernels faster than this (back-to-back estimate, us) are timed as CUDA-graph replays
            of many launches; slower ones launch by launch (the flush hides the launch overhead).
        sample_target_us: time per sample for batched and graph timing, microseconds.
        cuda_graphs: allow CUDA graphs (else back-to-back batches).
        time_reference: time the reference (as written: PyTorch eager) beside the kernels, interleaved
            (the gate asks for it; other timings, such as Stage 3's quick candidate timing, do not).
        compile_reference: also time ``torch.compile(reference)``; its compilation happens in the
            warm-up, outside the timed samples, and is reported as ``reference_compile_s``.
        compile_backend: the ``torch.compile`` backend (``inductor``; tests use ``eager``).
        compile_mode: the ``torch.compile`` mode (``max-autotune``, ...); ``None``: torch's default.
        max_graph_output_bytes: the most memory the outputs a CUDA graph keeps may take, bytes (``None``:
            the timer's own cap, 1 GiB); the tuning engine's bench worker bounds it by the problem's size.
        claim_margin_pct: the claim rule's margin (:func:`kernelopt.harness.stats.claim`): a case whose timing
            claims a difference between the current version and another callable at this margin is timed
            again, interleaved, so the claim can be confirmed (:func:`kernelopt.harness.stats.compare_retimed`);
            ``None``: no re-time (a timing whose figures claim nothing).
    """

    seconds_per_case: float = Field(default=1.0, gt=0)
    min_blocks: int = Field(default=10, ge=3)
    max_blocks: int = Field(default=200, ge=3)
    l2_flush: bool = True
    rotate_inputs: bool = True
    graph_below_us: float = Field(default=20.0, ge=0)
    sample_target_us: float = Field(default=1000.0, gt=0)
    cuda_graphs: bool = True
    time_reference: bool = False
    compile_reference: bool = False
    compile_backend: str = "inductor"
    compile_mode: str | None = None
    max_graph_output_bytes: int | None = Field(default=None, ge=0)
    claim_margin_pct: float | None = Field(default=None, ge=0, lt=100)


class WorkerJob(_Model):
    """What a worker is asked to do.

    Attributes:
        mode: ``check`` (correctness of ``kernels[0]``), ``bench`` (timing; with two kernels the first
            is the previous version A and the second the current version B, timed ABBA) or ``load``
            (import only, see :class:`JobMode`).
        reference_py: the workspace's reference.py.
        kernels: the kernel versions.
        device: ``cuda``/``cpu`` or ``None`` (worker picks CUDA when available; KERNELOPT_DEVICE forces).
        cases: indices into SHAPES to run (``None``: all).
        seeds: input sets per case for the check.
        dtype_hint: the task card's dtype (``tf32`` changes the tolerance of fp32 outputs).
        case_timeout_s: the per-case limit, so bench planning can stay well inside it.
        run_timeout_s: the run's limit over all cases (``None``: none), so a case's timing plans for what is left.
        bench: timing plan.
        progress_path: JSON-lines file the worker appends phase events to.
        result_path: where the worker writes its :class:`WorkerResult`.
        constants: module-level values of reference.py substituted as it runs (problem sizes; name ->
            number or tuple), checked against the file by the orchestrator.
        size_candidates: ``size`` mode: the sets of constants to try, in order.
    """

    mode: JobMode
    reference_py: str
    kernels: list[KernelSource] = Field(min_length=1, max_length=2)
    device: str | None = None
    cases: list[int] | None = None
    seeds: int = Field(default=3, ge=1)
    dtype_hint: str | None = None
    case_timeout_s: float = 30.0
    run_timeout_s: float | None = Field(default=None, gt=0)
    bench: BenchSettings = Field(default_factory=BenchSettings)
    progress_path: str
    result_path: str
    constants: dict[str, SizeValue] = Field(default_factory=dict)
    size_candidates: list[dict[str, SizeValue]] = Field(default_factory=list)


class Culprit(StrEnum):
    """Whose code failed: the kernel's (a FAIL of the kernel), or the problem's own (reference.py raised or
    could not be built: an ERROR of the problem, counted apart from the kernels)."""

    KERNEL = "kernel"
    PROBLEM = "problem"
    CHECKER = "checker"
    """The check itself could not run: it does not fit in the device's memory beside the kernel, or the checker's
    own work ran past its limit. An ERROR, counted apart from the kernels' failures, never a FAIL of the kernel."""


class ReferenceFault(Exception):
    """reference.py's own fault found while the problem is built or checked (:attr:`Culprit.PROBLEM`), its one line
    naming reference.py and the fix: an output on a device that holds no values
    (:class:`~kernelopt.harness.compare.ReferenceElsewhere`), an output that changes with the random state
    (:class:`~kernelopt.harness.draws.ReferenceNondeterministic`)."""


CHECK_DOES_NOT_FIT = "the check does not fit in the device's memory"
"""How the one line of a check that ran out of device memory in the checker's own work says it
(:attr:`Culprit.CHECKER`)."""


HOST_DOES_NOT_FIT = "of memory available, so nothing was"
"""What the one line of a case refused for the host's memory holds (``harness.hostmem.InputsDoNotFit``, the checker's
as :data:`CHECK_DOES_NOT_FIT` is): how a batch counts both apart from the problems' own failures."""


SIZE_REMEDY = "give a smaller SHAPES entry or a size scale (the task card's size_scale, or --size-scale)"
"""What a case too large for the memory it runs in says to do (the host's refusal before it is built, and an
out-of-memory error while ``get_inputs`` builds it)."""


PROBLEM_FAILED = "reference.py fails, not the kernel: fix reference.py or its SHAPES entry, then run again"
"""How `validate` and `optimize` begin the one line of a V0 whose reference failed (:attr:`Culprit.PROBLEM`):
bad input, exit 2, as `tune` says it and `batch` makes it an ERROR of the problem (issue 32, item 5)."""

ENTRY_UNRUNNABLE = "UnrunnableEntry"
"""The error class of a ``SHAPES`` entry the kernel as written (V0) cannot run while it runs another
(:mod:`kernelopt.harness.unrunnable`): the problem's (:attr:`Culprit.PROBLEM`), though reference.py did not fail."""

ENTRY_FAILED = "a SHAPES entry fails, not the kernel's versions"
"""How `validate` and `optimize` begin the one line of a V0 failing with :data:`ENTRY_UNRUNNABLE` (exit 2)."""


def problem_failed_prefix(error_class: str | None) -> str:
    """The words a V0 failing as the problem's begins with: :data:`ENTRY_FAILED` for an entry the kernel as written
    cannot run, else :data:`PROBLEM_FAILED` (reference.py's own failure)."""
    return ENTRY_FAILED if error_class == ENTRY_UNRUNNABLE else PROBLEM_FAILED


class Failure(_Model):
    """Why a candidate failed inside the worker.

    Attributes:
        message: precise reason, e.g. ``case 1 (n=1000): output contains NaN where the reference has none``.
        error_class: the exception class (``CompilationError``, ``OutOfMemoryError``), or a check name
            (``WrongShape``, ``NaN``, ``InputMutated``, ``NotWritten``, ``ConstantOutput``, ``CachedResult``,
            ``Mismatch``).
        case: the case index, when inside a case.
        version: the kernel label, when several were loaded.
        traceback: the Python traceback of an exception, when there was one.
        culprit: whose code failed (the problem's: reference.py).
    """

    message: str
    error_class: str | None = None
    case: int | None = None
    version: str | None = None
    traceback: str | None = None
    culprit: Culprit = Culprit.KERNEL


class CaseCheck(_Model):
    """Correctness of one case (one entry of SHAPES, all seeds).

    Attributes:
        index: position in SHAPES.
        label: ``n=1000`` (``default`` when SHAPES is absent).
        seeds: seeds checked.
        passed: all seeds passed.
        rel_err: max over seeds and outputs of ``||out - ref|| / ||ref||`` (2-norm, float64).
        max_abs_err: max absolute error.
        worst_ratio: max over elements of ``|out - ref| / (atol + rtol |ref|)`` (1 = at the tolerance).
        tolerance: the tolerance of the first output.
        reference_precision: dtype the reference was computed in (``float64`` normally).
        output_dtype: dtype of the first reference output.
        message: the failure, when it failed.
    """

    index: int
    label: str
    seeds: int = 0
    passed: bool = False
    rel_err: float | None = None
    max_abs_err: float | None = None
    worst_ratio: float | None = None
    tolerance: Tolerance | None = None
    reference_precision: str | None = None
    output_dtype: str | None = None
    message: str | None = None


class VersionTiming(_Model):
    """Raw timing of one kernel version on one case.

    Attributes:
        label: the version label.
        samples_us: per-launch latency of each sample, microseconds, in the order taken.
        method: how samples were taken.
        launches_per_sample: launches averaged in one sample.
        input_sets: distinct input sets rotated through.
        l2_flushed: the L2 cache was flushed before each sample.
        warnings: e.g. graph capture failed and batches were used.
        retime_samples_us: the samples of the re-time (a second interleaved timing of every callable, made when
            the first claimed a difference, :attr:`BenchSettings.claim_margin_pct`), in the order taken; empty
            when there was none.
    """

    label: str
    samples_us: list[float]
    method: TimingMethod
    launches_per_sample: int
    input_sets: int = 1
    l2_flushed: bool = False
    warnings: list[str] = Field(default_factory=list)
    retime_samples_us: list[float] = Field(default_factory=list)


class CaseTiming(_Model):
    """Timing of one case for every version, with the work it does.

    Attributes:
        index: position in SHAPES.
        label: shape label.
        versions: one entry per version (A first when two).
        interleaved: samples were taken ABBA in one sitting.
        flops: FLOP per launch from reference ``flops()``, ``None`` when unknown.
        bytes_moved: bytes per launch from ``bytes_moved()``, else inputs + outputs.
        bytes_source: ``bytes_moved()`` or ``inputs + outputs``.
        output_dtype: dtype of the first output.
        reference_compile_s: seconds of the compiled reference's warm-up (its compilation), not timed.
        reference_compile_error: why ``torch.compile(reference)`` was not timed, when asked and it failed.
        reduced: why the case was timed with fewer samples than a full timing takes (one call too slow for the full
            plan to fit its limit, :func:`kernelopt.harness.timers.full_timing_fits`); ``None``: a full timing.
    """

    index: int
    label: str
    versions: list[VersionTiming]
    interleaved: bool = False
    flops: float | None = None
    bytes_moved: float | None = None
    bytes_source: str | None = None
    output_dtype: str | None = None
    reference_compile_s: float | None = None
    reference_compile_error: str | None = None
    reduced: str | None = None


class WorkerResult(_Model):
    """What a worker wrote back.

    Attributes:
        mode: the job's mode.
        device: device used (``cuda``, ``cpu``).
        device_name: the GPU's name (``NVIDIA H200``) or ``cpu``.
        torch_version: torch's version string.
        triton_version: triton's, when imported.
        form: kernel form (``function`` / ``kernelbench``).
        n_shapes: entries in SHAPES.
        cases: correctness per case (check mode).
        timings: timing per case (bench mode).
        failure: why the candidate failed; ``None`` when it did not.
        warnings: things the user should know (all-zero inputs, inputs re-randomized, ...).
        compile_s: seconds spent in JIT compilation hooks.
        size_choice: ``size`` mode: the index of the first candidate the reference ran with (``None``: none).
        size_failures: ``size`` mode: why each candidate before it (or every one) did not run, one line each.
    """

    mode: JobMode
    device: str
    device_name: str | None = None
    torch_version: str | None = None
    triton_version: str | None = None
    form: str | None = None
    n_shapes: int = 0
    cases: list[CaseCheck] = Field(default_factory=list)
    timings: list[CaseTiming] = Field(default_factory=list)
    failure: Failure | None = None
    warnings: list[str] = Field(default_factory=list)
    compile_s: float = 0.0
    size_choice: int | None = None
    size_failures: list[str] = Field(default_factory=list)


class RunOutcome(_Model):
    """A worker run as the orchestrator saw it.

    Attributes:
        result: the worker's result (``None`` when it crashed or was killed first).
        returncode: exit status; negative for a signal; ``None`` when killed for a timeout.
        timed_out: killed by the watchdog.
        timeout_message: which limit was exceeded, where.
        timeout_culprit: whose code the run was killed in: the problem's when it was building the inputs or
            running the reference (a reference that hangs is an ERROR of the problem), else the kernel's.
        crash_culprit: whose code the worker was in when it died without a result (a signal, ``os._exit``):
            the problem's while importing reference.py, building the inputs or running the reference, else
            the kernel's. Read only when ``result`` is ``None`` and the run was not killed for a timeout.
        killed_in_phase: the phase the worker was in when it was killed for a timeout (``load``: kernel.py's
            import ran past the compile limit); ``None`` when it was not killed.
        last_phase: the phase the worker last reported (``case``, ``load``, ...).
        last_case: the case it was in, when in one.
        last_label: that case's label.
        last_where: where the worker last was, in words (``case 0 (default), running the reference
            (reference.py)``), for a crash's message.
        stderr_tail: the last lines of its stderr.
        duration_s: wall-clock seconds.
        run_dir: folder with job.json, progress.jsonl, result.json, stdout/stderr.
        output_dropped_bytes: bytes of stdout + stderr cut from the middle of the files (head and tail
            kept, see :class:`kernelopt.worker.output.OutputCap`).
    """

    result: WorkerResult | None = None
    returncode: int | None = None
    timed_out: bool = False
    timeout_message: str | None = None
    timeout_culprit: Culprit = Culprit.KERNEL
    crash_culprit: Culprit = Culprit.KERNEL
    killed_in_phase: str | None = None
    last_phase: str | None = None
    last_case: int | None = None
    last_label: str | None = None
    last_where: str | None = None
    stderr_tail: str | None = None
    duration_s: float = 0.0
    run_dir: str | None = None
    output_dropped_bytes: int = 0


class CorrectnessReport(_Model):
    """Stage 3's "run correctness at once" and the first part of Stage 4.

    Attributes:
        passed: every case passed.
        status: PASS / FAIL / TIMEOUT_FAIL.
        rel_err: max over cases of ``||out - ref|| / ||ref||``.
        max_abs_err: max over cases of the absolute error.
        message: the precise failure reason, or a one-line pass summary.
        error_class: exception or check class of the failure.
        stderr_tail: the worker's stderr tail on a crash or timeout.
        cases: per-case results.
        device: the device it ran on.
        device_name: the GPU name.
        duration_s: wall-clock seconds of the worker run.
        warnings: notes from the worker.
        run_dir: the run folder (job, progress events, stdout/stderr of the worker).
    """

    passed: bool
    status: CorrectnessStatus
    rel_err: float | None = None
    max_abs_err: float | None = None
    message: str
    error_class: str | None = None
    culprit: Culprit = Culprit.KERNEL
    stderr_tail: str | None = None
    cases: list[CaseCheck] = Field(default_factory=list)
    device: str | None = None
    device_name: str | None = None
    duration_s: float | None = None
    warnings: list[str] = Field(default_factory=list)
    run_dir: str | None = None


class CaseBench(_Model):
    """Timing statistics of one case.

    Attributes:
        index: position in SHAPES.
        label: shape label.
        current: statistics of the current version's samples (microseconds).
        previous: the previous version's, when compared.
        speedup: ABBA speedup of current over previous.
        method: timing method of the current version.
        launches_per_sample: launches per sample.
        l2_flushed: L2 flushed before each sample.
        flops: FLOP per launch, ``None`` when unknown.
        bytes_moved: bytes per launch.
        bytes_source: where the byte count comes from.
        output_dtype: dtype of the first output.
        warnings: noise and method warnings.
        reference: statistics of the reference (eager), timed beside the current version.
        reference_speedup: reference latency / current latency, from the interleaved blocks.
        compiled: statistics of ``torch.compile(reference)``, when asked.
        compiled_speedup: compiled reference latency / current latency.
        reference_withheld: why the speedup over the reference is not reported (its interval is too wide).
        compiled_withheld: the same for the compiled reference.
        reference_compile_s: seconds torch.compile took (outside the timing).
        reference_compile_error: why the compiled reference was not timed.
        reference_method: how the reference's samples were taken (:func:`kernelopt.harness.gate.method_line`: its
            own method, which may differ from the kernel's where its CUDA graph failed); compiled_method: the same
            for ``torch.compile(reference)``.
    """

    index: int
    label: str
    current: SampleStats
    previous: SampleStats | None = None
    speedup: SpeedupEstimate | None = None
    method: TimingMethod
    launches_per_sample: int
    l2_flushed: bool
    flops: float | None = None
    bytes_moved: float | None = None
    bytes_source: str | None = None
    output_dtype: str | None = None
    warnings: list[str] = Field(default_factory=list)
    reference: SampleStats | None = None
    reference_speedup: SpeedupEstimate | None = None
    compiled: SampleStats | None = None
    compiled_speedup: SpeedupEstimate | None = None
    reference_withheld: str | None = None
    compiled_withheld: str | None = None
    reference_compile_s: float | None = None
    reference_compile_error: str | None = None
    reference_method: str | None = None
    compiled_method: str | None = None


class BenchReport(_Model):
    """Timing of the current version (and the comparison with the previous one).

    Attributes:
        ok: the timing run finished.
        status: PASS, or FAIL / TIMEOUT_FAIL when the timing run itself failed.
        message: failure reason, when not ok.
        error_class: failure class.
        stderr_tail: worker stderr tail on failure.
        device: device used.
        device_name: GPU name.
        cases: per-case statistics.
        previous_label: label of the version compared with, when any.
        samples_path: file holding the raw samples.
        warnings: notes.
    """

    ok: bool
    status: CorrectnessStatus
    message: str | None = None
    error_class: str | None = None
    culprit: Culprit = Culprit.KERNEL
    stderr_tail: str | None = None
    device: str | None = None
    device_name: str | None = None
    cases: list[CaseBench] = Field(default_factory=list)
    previous_label: str | None = None
    samples_path: str | None = None
    warnings: list[str] = Field(default_factory=list)

    def primary(self) -> CaseBench | None:
        """The first case (SHAPES[0], the primary problem size), or ``None``."""
        return self.cases[0] if self.cases else None


def shape_label(shape: dict[str, Any]) -> str:
    """``{"n": 1000}`` -> ``n=1000``; ``{}`` -> ``default``."""
    if not shape:
        return "default"
    return ",".join(f"{k}={v}" for k, v in shape.items())


#: the most characters of one ``SHAPES`` value a line shows (:func:`shown_value`)
SHOWN_VALUE_CHARS = 24


def shown_value(value: Any, *, as_repr: bool = False) -> str:
    """One ``SHAPES`` value as a line a user reads shows it, cut by :func:`~kernelopt.oneline.one_line` to
    :data:`SHOWN_VALUE_CHARS` (an entry of ``10**300`` was printed whole, its 301 digits, in one-line errors)."""
    return one_line(repr(value) if as_repr else str(value), SHOWN_VALUE_CHARS)


def shown_shape(shape: Mapping[str, Any], empty: str = "default") -> str:
    """``{"M": 64, "N": 1000}`` -> ``M=64,N=1000`` for a line a user reads (as a ``SHAPES`` entry's label is written),
    each value cut (:func:`shown_value`); ``empty`` for ``{}``. Never a key: :func:`shape_label` is the label."""
    return ",".join(f"{k}={shown_value(v)}" for k, v in shape.items()) or empty
