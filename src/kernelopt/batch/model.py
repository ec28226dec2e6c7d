"""The batch table: one typed row per problem folder, fast_p over them, and its CSV text. Pure."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.harness.sizes import SizePlan
from kernelopt.harness.stats import Verdict

#: KernelBench's fast_p thresholds: the share of problems that are correct and faster than p x reference.
#: Our choice: a level-1 problem validates in well under a minute; the limit only catches a stuck child.
#: (Here, not in :mod:`.rows`, so that ``kernelopt --help`` and the other commands start without
#: importing the batch runner.)
DEFAULT_PROBLEM_TIMEOUT_S = 1800.0

FAST_P_THRESHOLDS = (1.0, 1.5, 2.0)


class BatchMode(StrEnum):
    VALIDATE = "validate"
    OPTIMIZE = "optimize"


class ProblemStatus(StrEnum):
    """How one problem ended.

    ``PASS`` / ``FAIL`` / ``TIMEOUT_FAIL``: the gate's verdict on the kernel; ``INVALID``: the folder is not a
    problem in either accepted form; ``ERROR``: the problem could not be run, through no fault of the kernel
    (its reference raised or could not be built, no size scale keeps it valid, a bad task card, no device,
    a process that died without a result, a Ray worker lost twice), with its one-line reason. ERROR rows are
    counted apart: fast_p is over the other rows.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    TIMEOUT_FAIL = "TIMEOUT_FAIL"
    INVALID = "INVALID"
    ERROR = "ERROR"


class PhaseSeconds(BaseModel):
    """Where a problem's work seconds went, summed over its check and timing runs (from their progress files:
    :class:`kernelopt.harness.progress.Step`), so that a slow batch shows what is slow. What ``duration_s``
    holds beyond their sum is the batch's own overhead (the workspace, the gate, forking the workers).

    Attributes:
        start_s: the workers' start-up (forked from the pool: CUDA's start; a fresh process: Python and imports).
        load_s: importing reference.py and kernel.py (building any extension), building the models.
        inputs_s: ``get_inputs()``, every seed of the check and the timing's input sets.
        reference_s: the reference's runs: in its own dtype and in float64 for the check, its timing warm-up.
        kernel_s: the kernel's runs in the check (its compilation and its call).
        check_s: the checker's work around them: copies of the inputs, poisoned memory, the comparison.
        timing_s: the kernel's warm-up and the interleaved samples of the kernel and the reference.
    """

    model_config = ConfigDict(extra="forbid")

    start_s: float = 0.0
    load_s: float = 0.0
    inputs_s: float = 0.0
    reference_s: float = 0.0
    kernel_s: float = 0.0
    check_s: float = 0.0
    timing_s: float = 0.0

    def total_s(self) -> float:
        return sum(getattr(self, name) for name in PHASE_COLUMNS)


#: The per-phase columns of ``batch.csv`` (the fields of :class:`PhaseSeconds`, in order).
PHASE_COLUMNS = tuple(PhaseSeconds.model_fields)


def row_key(problem: str, sample: int | None) -> str:
    """The identity of a row in its batch: the problem, and the sample when there are samples."""
    return problem if sample is None else f"{problem} sample {sample}"


class ProblemRow(BaseModel):
    """One problem of the batch (one problem and sample in KernelBench's layout).

    Attributes:
        problem: the folder's name (KernelBench layout: the problem file's name, ``19_ReLU``).
        folder: the folder that ran (KernelBench layout: made from the problem file and the sample).
        problem_id: KernelBench layout: the problem's number.
        sample: KernelBench layout: the sample's number (``None``: the problem has no sample).
        status: how it ended.
        correct: the kernel matched the reference; ``None`` when correctness never ran.
        latency_us: median latency of the kernel (the best passing version with ``--optimize``).
        reference_latency_us: median latency of the reference (PyTorch eager), timed beside it.
        speedup_vs_eager: reference (eager) latency / kernel latency, interleaved.
        eager_ci_low, eager_ci_high: the 95 % interval of ``speedup_vs_eager``; eager_p_value: its test's p.
        eager_verdict: ``improvement`` when the speedup is a significant claim (p < 0.05, Cohen's d > 0.2, the
            interval past the 2 % margin: :func:`kernelopt.harness.stats.claim`), ``regression`` for a
            significant slowdown, else ``no significant change``.
        speedup_vs_compile: ``torch.compile(reference)`` latency / kernel latency, when timed.
        compile_ci_low, compile_ci_high: the 95 % interval of ``speedup_vs_compile``.
        compile_verdict: as ``eager_verdict``, against torch.compile.
        compiled_against: what built the compiled reference of ``speedup_vs_compile``, said as every printed place
            says it (:func:`kernelopt.report.headline.compiled_name`: ``torch.compile (mode max-autotune)``;
            ``torch.compile`` for a record from before the mode was kept).
        timing_method: how the kernel's samples were taken (the record's ``performance.timing_method``:
            ``cuda_graph, 10 launch(es)/sample, 400 samples, L2 flushed before each sample``).
        reference_timing_method: how the reference's (PyTorch eager's) were, in the same worker, interleaved with
            the kernel's: its own method, which may differ from the kernel's (a reference no CUDA graph captures).
        compile_s: seconds torch.compile took (outside the timing).
        best_version: the version the figures are of (``v0`` for validate).
        reason: one line: why it failed or is not a problem; ``None`` on PASS.
        changed: ``--optimize``: what the loop changed, V0 -> best (the knob changes of the kept versions, how
            many versions and candidates: ``BLOCK 1024 -> 4096, num_warps 4 -> 8 (2 versions, 24
            candidates)``), or why nothing changed (``launch configuration converged at 85 % of roofline
            ...``, ``no tunable knob in kernel.py: ...``); ``None`` when validating or when the baseline failed.
        stop: ``--optimize``: the loop's stop reason and its evidence (``converged: ...``), when it finished.
        workspace: the workspace the problem ran in, when one was made.
        duration_s: wall-clock seconds of the problem (workspace, start-up, compilation, checks, timing).
        work_s: seconds its workers spent checking and timing it (the correctness and timing phases,
            compile pauses excluded; the rest of ``duration_s`` is overhead).
        phases: where its workers' seconds went, phase by phase (``None``: no worker ran).
        attempts: how many times it was started (a lost Ray worker is retried once).
        host: where it ran (Ray: node and GPU), when known.
        sizes: the sizes it ran at when a size scale (or the task card) changed them: what was scaled (from ->
            to) and what was kept and why.
        sources: the sha256 of each file of the problem's folder it ran from (``reference.py``, ``kernel.py``,
            ``README.md``; the problem's file when nothing ran), taken as it started: a resumed batch runs the
            problem again when one of them changed since (``None`` in tables written before it).
    """

    model_config = ConfigDict(extra="forbid")

    problem: str
    folder: str
    problem_id: int | None = None
    sample: int | None = None
    status: ProblemStatus
    correct: bool | None = None
    latency_us: float | None = None
    reference_latency_us: float | None = None
    speedup_vs_eager: float | None = None
    eager_ci_low: float | None = None
    eager_ci_high: float | None = None
    eager_p_value: float | None = None
    eager_verdict: str | None = None
    speedup_vs_compile: float | None = None
    compile_ci_low: float | None = None
    compile_ci_high: float | None = None
    compile_verdict: str | None = None
    compiled_against: str | None = None
    timing_method: str | None = None
    reference_timing_method: str | None = None
    compile_s: float | None = None
    best_version: str | None = None
    reason: str | None = None
    changed: str | None = None
    stop: str | None = None
    workspace: str | None = None
    duration_s: float | None = None
    work_s: float | None = None
    phases: PhaseSeconds | None = None
    attempts: int = 1
    host: str | None = None
    sizes: SizePlan | None = None
    sources: dict[str, str] | None = None

    @property
    def key(self) -> str:
        return row_key(self.problem, self.sample)


class FastP(BaseModel):
    """fast_p at one threshold: correct problems with speedup > ``threshold``, over the problems that are not
    ``ERROR`` (those failed through no fault of the kernel and are counted apart).

    Attributes:
        threshold: p.
        eager, compile: KernelBench's fast_p against eager and torch.compile (``None``: never timed).
        eager_significant, compile_significant: the same, counting only speedups that are significant claims
            (``*_verdict`` ``improvement``: p < 0.05, Cohen's d > 0.2, past the margin); at p = 1.0 this is
            what KernelBench's fast_1 means to say, without its coin flip on identical speeds.
        problems: the rows counted (all but ERROR); errors: the ERROR rows left out.
    """

    model_config = ConfigDict(extra="forbid")

    threshold: float
    eager: float | None
    compile: float | None
    eager_significant: float | None = None
    compile_significant: float | None = None
    problems: int | None = None
    errors: int | None = None


class BatchTable(BaseModel):
    """The whole batch (``batch.json``): rows in folder order and fast_p over them.

    Attributes:
        directory: the folder of problems.
        mode: validate or optimize.
        rows: one per problem folder (KernelBench layout: per problem and sample), finished ones only
            (the batch resumes from them).
        fast_p: at 1.0, 1.5 and 2.0, against eager and against torch.compile.
        updated: when the table was last written.
        settings: what else decides the figures (device, size scale, compiled reference, backends,
            iterations, the KernelBench runs folder and level); a resume with other settings is refused.
            ``None`` in tables written before it.
    """

    model_config = ConfigDict(extra="forbid")

    directory: str
    mode: BatchMode
    rows: list[ProblemRow] = Field(default_factory=list)
    fast_p: list[FastP] = Field(default_factory=list)
    updated: datetime = Field(default_factory=lambda: datetime.now(UTC))
    settings: dict[str, str | float | int | bool | None] | None = None


def fast_p(rows: Sequence[ProblemRow], threshold: float) -> FastP:
    """KernelBench's fast_p: the share of problems that are correct and faster than ``threshold`` x the
    reference, and the significant fast_p that counts only significant claims; over every row but ``ERROR``
    (the problem's fault, counted apart); against torch.compile ``None`` when no problem timed it."""
    counted = [r for r in rows if r.status is not ProblemStatus.ERROR]
    errors = len(rows) - len(counted)
    n = len(counted)
    if n == 0:
        return FastP(threshold=threshold, eager=None, compile=None, problems=0, errors=errors)

    def share(speedup: str, verdict: str | None) -> float:
        hits = 0
        for r in counted:
            value = getattr(r, speedup)
            if r.correct and value is not None and value > threshold:
                hits += verdict is None or getattr(r, verdict) == Verdict.IMPROVEMENT
        return hits / n

    timed = any(r.speedup_vs_compile is not None for r in counted)
    return FastP(
        threshold=threshold,
        eager=share("speedup_vs_eager", None),
        compile=share("speedup_vs_compile", None) if timed else None,
        eager_significant=share("speedup_vs_eager", "eager_verdict"),
        compile_significant=share("speedup_vs_compile", "compile_verdict") if timed else None,
        problems=n,
        errors=errors,
    )


def with_fast_p(table: BatchTable) -> BatchTable:
    """``table`` with its fast_p recomputed from its rows."""
    return table.model_copy(update={"fast_p": [fast_p(table.rows, p) for p in FAST_P_THRESHOLDS]})


CSV_COLUMNS = (
    "problem",
    "problem_id",
    "sample",
    "status",
    "correct",
    "latency_us",
    "reference_latency_us",
    "speedup_vs_eager",
    "speedup_vs_compile",
    "compile_s",
    "best_version",
    "reason",
    "changed",
    "stop",
    "workspace",
    "duration_s",
    "work_s",
    "attempts",
    "host",
    "eager_ci_low",
    "eager_ci_high",
    "eager_p_value",
    "eager_verdict",
    "compile_verdict",
    "compile_ci_low",
    "compile_ci_high",
    "compiled_against",
    "timing_method",
    "reference_timing_method",
    *PHASE_COLUMNS,
)


def csv_text(table: BatchTable) -> str:
    """The rows as CSV (header first; empty cells for unknown values), then no fast_p lines: those are
    in ``batch.json`` and the printed table."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in table.rows:
        data = row.model_dump(mode="json", exclude={"phases"})
        data.update(row.phases.model_dump() if row.phases is not None else dict.fromkeys(PHASE_COLUMNS))
        writer.writerow(["" if data[c] is None else data[c] for c in CSV_COLUMNS])
    return buf.getvalue()
