"""The typed content of a report: versions, their evidence, the roofs, the git history.

Built from a workspace by :mod:`kernelopt.report.reader`; rendered to Markdown
(:mod:`kernelopt.report.markdown`), HTML (:mod:`kernelopt.report.html`) and a roofline plot
(:mod:`kernelopt.report.roofline`). Everything here is pure: derived figures (speedup, arithmetic
intensity) are computed only from measured values and stay ``None`` when an input is missing.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.evidence.model import KernelEvidence, ProfileSummary
from kernelopt.memory.model import GateResult, IterationRecord, best_version, speedup_over_v0

REPORT_TITLE = "kernelopt report: "
"""How a report's title begins (the workspace's name follows): how kernelopt knows a report it wrote."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CeilingKind(StrEnum):
    """Which roof a ceiling is: the compute roof (TFLOP/s) or the memory roof (GB/s)."""

    COMPUTE = "compute"
    MEMORY = "memory"


class CeilingOrigin(StrEnum):
    """Where a ceiling comes from: the vendor spec sheet or a measurement on the machine."""

    SPEC = "spec"
    MEASURED = "measured"


class Ceiling(_Model):
    """One roof of the roofline.

    Attributes:
        kind: compute (``value`` in TFLOP/s) or memory (``value`` in GB/s, 1e9 bytes/s).
        origin: spec sheet or measured.
        label: short name shown beside the origin (``HBM bandwidth``, ``fp16 peak``, ``add bandwidth``).
        value: the ceiling in ``unit``.
        unit: ``TFLOP/s`` or ``GB/s``.
        source: citation of the figure (spec sheet title and URL, or the measurement).
    """

    kind: CeilingKind
    origin: CeilingOrigin
    label: str
    value: float = Field(gt=0)
    unit: str
    source: str


#: The device name the harness records for a run on the CPU timing path (``Performance.gpu``).
CPU_DEVICE = "cpu"


class MeasuredDevice(_Model):
    """A device the versions were timed on, as their memory records say (``performance.gpu``).

    Attributes:
        name: the device name recorded by the harness (``NVIDIA H200``, or ``cpu`` on the CPU path).
        timing_methods: how the samples were taken (``cuda_graph``, ``cpu_perf_counter`` ...), in order.
        versions: the versions timed there (``V0``, ``V1`` ...).
    """

    name: str
    timing_methods: list[str] = Field(default_factory=list)
    versions: list[str] = Field(default_factory=list)

    @property
    def is_cpu(self) -> bool:
        return self.name.strip().lower() == CPU_DEVICE

    def describe(self) -> str:
        """``cpu (CPU timing path, no GPU; cpu_perf_counter; V0-V2)`` / ``NVIDIA H200 (cuda_graph; V0, V1)``."""
        parts = ["CPU timing path, no GPU"] if self.is_cpu else []
        if self.timing_methods:
            parts.append(", ".join(self.timing_methods))
        if self.versions:
            parts.append(", ".join(self.versions))
        return f"{self.name} ({'; '.join(parts)})" if parts else self.name


class VersionEntry(_Model):
    """One iteration as the report shows it.

    Attributes:
        record: the memory record (masked ones included; ``record.masked`` says so).
        plan_path: the plan file relative to the workspace, when it exists.
        plan_title: the plan's first Markdown heading, when there is one.
        summary: the Stage 1 evidence of ``profiles/v<N>/summary.json``, when readable.
        summary_problem: why there is no summary (missing, corrupt), when there is none.
        commit: the short hash of the version's commit as it stands in the git log, when found.
        commit_subject: the subject of that commit.
    """

    record: IterationRecord
    plan_path: str | None = None
    plan_title: str | None = None
    summary: ProfileSummary | None = None
    summary_problem: str | None = None
    commit: str | None = None
    commit_subject: str | None = None

    @property
    def label(self) -> str:
        """``V<N>`` as the report prints it."""
        return f"V{self.record.number}"

    @property
    def gate(self) -> GateResult | None:
        return self.record.quality_gate.result

    @property
    def converged(self) -> bool:
        """The version's tuning session kept nothing (:attr:`IterationRecord.converged`): recorded FAIL, no kernel
        failed."""
        return self.record.converged

    @property
    def failed(self) -> bool:
        """True when the quality gate said FAIL or TIMEOUT_FAIL, and not because a tuning session kept nothing."""
        return self.gate in (GateResult.FAIL, GateResult.TIMEOUT_FAIL) and not self.converged

    @property
    def good(self) -> bool:
        """An active version of the kernel: not masked, not failed, with a measured latency.

        V0 counts when it has no gate result (the baseline is measured, not gated against anything);
        later versions need ``PASS``.
        """
        if self.record.masked or self.record.performance.latency_us is None:
            return False
        if self.record.number == 0:
            return not self.failed
        return self.gate is GateResult.PASS

    @property
    def status(self) -> str:
        """``PASS`` / ``FAIL`` / ``TIMEOUT_FAIL`` / ``not gated``, or ``converged`` for a version whose tuning
        session kept nothing (:attr:`converged`), with ``masked`` appended when masked."""
        text = "converged" if self.converged else self.gate.value if self.gate else "not gated"
        return f"{text}, masked" if self.record.masked else text

    @property
    def primary_kernel(self) -> KernelEvidence | None:
        return self.summary.primary() if self.summary else None

    @property
    def arithmetic_intensity(self) -> float | None:
        """FLOP per byte from the recorded counts (older records: from the rates, TFLOP/s * 1e12 / (GB/s * 1e9));
        ``None`` when either is unknown."""
        p = self.record.performance
        if p.flops is not None and p.bytes_moved:
            return p.flops / p.bytes_moved
        if p.tflops is None or not p.bandwidth_gbps:
            return None
        return p.tflops * 1e3 / p.bandwidth_gbps


class ReportData(_Model):
    """Everything a report shows, read from one workspace.

    Attributes:
        name: the workspace name.
        root: the workspace folder.
        gpu: the GPU named by the task card (or the records), as written there.
        card_gpu: the GPU the task card names, when it names one.
        measured_on: the devices the versions were timed on, from their records, in version order.
        measured_elsewhere: True when some version was timed on a device that is not ``gpu`` (the CPU
            timing path, or another GPU), so the header must not present ``gpu`` as where it ran.
        profiled_on: the GPUs the Stage 1 profiles were taken on (``summary.json``), in version order.
        gpu_spec: the spec sheet's full name, when one matched.
        spec_problem: why no spec roof is shown (unknown GPU, no dtype), when none is.
        dtype: the task card's dtype, normalized (``fp16``), when known.
        kernel_type: the task card's kernel type.
        framework: the task card's framework.
        stop_roofline_pct: the stop condition on % of the roofline bound.
        max_iterations: the stop condition on iterations, when set.
        stop_reason: why the last run stopped (``max_iterations: 3 iteration(s) run, limit 3``), from the
            loop's saved state; None when no run finished (or its state is gone).
        stage_seconds: wall time of each stage over the loop's runs of this workspace, seconds (saved state).
        profiles_taken: Stage 1 profiler calls the loop made (saved state).
        ceilings: the roofs (spec and measured) with their sources.
        measured_problem: why no measured ceiling is shown, when none is.
        versions: every readable record, in version order.
        unreadable: records that could not be read (``v<N>: reason``).
        git_log: (short hash, subject) of the workspace's commits, newest first.
        has_baseline_report: True when ``baseline_report.md`` exists.
    """

    name: str
    root: str
    gpu: str | None = None
    card_gpu: str | None = None
    measured_on: list[MeasuredDevice] = Field(default_factory=list)
    measured_elsewhere: bool = False
    profiled_on: list[str] = Field(default_factory=list)
    gpu_spec: str | None = None
    spec_problem: str | None = None
    dtype: str | None = None
    kernel_type: str | None = None
    framework: str | None = None
    stop_roofline_pct: float | None = None
    max_iterations: int | None = None
    stop_reason: str | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    profiles_taken: int | None = None
    ceilings: list[Ceiling] = Field(default_factory=list)
    measured_problem: str | None = None
    versions: list[VersionEntry] = Field(default_factory=list)
    unreadable: list[str] = Field(default_factory=list)
    git_log: list[tuple[str, str]] = Field(default_factory=list)
    has_baseline_report: bool = False

    def baseline(self) -> VersionEntry | None:
        """V0, when it has a record."""
        return next((v for v in self.versions if v.record.number == 0), None)

    def good_versions(self) -> list[VersionEntry]:
        return [v for v in self.versions if v.good]

    def final(self) -> VersionEntry | None:
        """The kernel the loop ended with: the best good version (a run ends on the best kernel,
        :mod:`kernelopt.loop.ending`)."""
        return self.best()

    def best(self) -> VersionEntry | None:
        """The best version (:func:`~kernelopt.memory.model.best_version`, the rule the loop uses)."""
        best = best_version(v.record for v in self.versions)
        return next((v for v in self.versions if best is not None and v.record.number == best.number), None)

    def failed_versions(self) -> list[VersionEntry]:
        return [v for v in self.versions if v.failed]

    def masked_versions(self) -> list[VersionEntry]:
        return [v for v in self.versions if v.record.masked]

    def speedup(self, entry: VersionEntry | None) -> float | None:
        """``entry``'s speedup over V0 by the chain of side-by-side verdicts (:func:`v0_runs` says it in words;
        :func:`~kernelopt.memory.model.speedup_over_v0`); ``None`` when either has no measured latency or V0 did not
        pass."""
        if entry is None:
            return None
        return speedup_over_v0((v.record for v in self.versions), entry.record.number)

    def timing_only_versions(self) -> list[VersionEntry]:
        """Versions whose Stage 1 evidence had no hardware counters."""
        return [v for v in self.versions if v.summary is not None and not v.summary.counters_available]


def v0_runs(label: str) -> str:
    """The runs a speedup over V0 multiplies (:meth:`ReportData.speedup`), in words: each gate's interleaved timing of
    its version beside the best version before it, chained from V0, never V0's median over the version's (two gate
    runs, which drift with the host's load and the GPU's clocks). newuser13's report read "speedup over V0: 13.97x"
    (two runs' medians) beside "Against the previous version: ... speedup 11.01x" for V1, whose previous is V0;
    flag_flash's run ended on V0 over a V1 its gate timed 1.71x faster beside it (late46 l160). The one rule the
    summary and the timeline's note read."""
    return f"the gates' interleaved speedups chained from V0 to {label}, each version timed beside the best before it"


#: The runs the comparison with the previous version divides (``Comparison``: the gate's interleaved timing).
PREVIOUS_RUNS = "both timed alternately in this version's gate run"
