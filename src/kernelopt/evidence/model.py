"""Typed Stage 1 evidence: the contract between profilers, planners and reports.

Every claim is ``evidence -> inference -> action``. An :class:`EvidenceItem` names the metric, its value
with unit, the threshold it was compared with (and where that threshold comes from) and the artifact
it was read from. A :class:`Finding` is one rule that fired. A :class:`ProfileSummary` is what Stage 1
writes to ``profiles/v<N>/summary.json``; Stage 2 plans from it without caring about the vendor.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory
from kernelopt.digits import sig
from kernelopt.vocabulary import Vendor

SUMMARY_SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class BottleneckType(StrEnum):
    """The bottleneck class of a kernel (Nsight Compute's SOL-based taxonomy)."""

    MEMORY_BOUND = "memory_bound"
    COMPUTE_BOUND = "compute_bound"
    LATENCY_BOUND = "latency_bound"
    LAUNCH_OCCUPANCY_BOUND = "launch_occupancy_bound"
    UNKNOWN = "unknown"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class EvidenceItem(_Model):
    """One measured fact behind a finding.

    Attributes:
        metric: the profiler's own metric name (e.g. ``dram__throughput.avg.pct_of_peak_sustained_elapsed``)
            or an ISA fact name (e.g. ``sass.LDG.E.32``).
        value: the measured value; ``None`` when not measured (then ``missing_reason`` says why).
        unit: unit of ``value`` (``%``, ``GB/s``, ``us``, ``count``, ``bytes``, ...).
        threshold: the comparison that made it evidence (e.g. ``>= 60 %``); ``None`` for context items.
        threshold_source: where the threshold comes from (document title / rule file), when there is one.
        source: the artifact it was read from: report file + metric name, or ``file:line``, or SASS address.
        missing_reason: why ``value`` is ``None``.
    """

    metric: str
    value: float | str | None
    unit: str | None = None
    threshold: str | None = None
    threshold_source: str | None = None
    source: str
    missing_reason: str | None = None

    def render(self, *, with_source: bool = True) -> str:
        """``metric = value unit (threshold) [source]`` on one line (without `` [source]`` when ``with_source`` is
        False: a digest that says the kernel's artifact once)."""
        if self.value is None:
            shown = f"n/a ({self.missing_reason or 'not measured'})"
        elif isinstance(self.value, float):
            shown = sig(self.value)
        else:
            shown = str(self.value)
        unit = f" {self.unit}" if self.unit and self.value is not None else ""
        thr = f" (threshold {self.threshold})" if self.threshold else ""
        source = f" [{self.source}]" if with_source else ""
        return f"{self.metric} = {shown}{unit}{thr}{source}"


class Finding(_Model):
    """One evidence rule that fired: ``evidence -> inference -> action``.

    Attributes:
        rule_id: stable id of the rule (e.g. ``nv.dram_bandwidth_bound``).
        symptom: the symptom id searched in the wiki (see :mod:`kernelopt.evidence.symptoms`).
        confidence: how sure the rule is.
        evidence: the measured facts, each with its source.
        inference: what the facts mean, in one sentence.
        action_categories: the action categories to try, best first.
        estimated_speedup_pct: the profiler's own estimate of the gain, when it gives one (ncu rules).
        location: file:line or SASS address the finding points at, when known.
    """

    rule_id: str
    symptom: str
    confidence: Confidence = Confidence.MEDIUM
    evidence: list[EvidenceItem]
    inference: str
    action_categories: list[ActionCategory] = Field(default_factory=list)
    estimated_speedup_pct: float | None = None
    location: str | None = None

    def chain(self, *, with_source: bool = True) -> str:
        """The ``evidence -> inference -> action`` line used in plans and memory (each fact without its artifact
        when ``with_source`` is False)."""
        facts = "; ".join(e.render(with_source=with_source) for e in self.evidence)
        actions = ", ".join(a.value for a in self.action_categories) or "none"
        return f"{facts} -> {self.inference} -> try {actions}"


class ProfilerRuleResult(_Model):
    """One of the profiler's own guided-analysis results (Nsight Compute rule, or AMD equivalent).

    Attributes:
        rule_id: the profiler's rule identifier (e.g. ``SOLBottleneck``).
        section: the section the rule belongs to, when known.
        kind: message type (``OPTIMIZATION``, ``WARNING``, ``INFO``, ...).
        message: the rule's text.
        estimated_speedup_pct: estimated speedup in percent, when the profiler gives one.
        speedup_type: ``LOCAL`` or ``GLOBAL`` as the profiler reports it.
        focus_metrics: metric names the rule points at.
    """

    rule_id: str
    section: str | None = None
    kind: str | None = None
    message: str
    estimated_speedup_pct: float | None = None
    speedup_type: str | None = None
    focus_metrics: list[str] = Field(default_factory=list)


class Hotspot(_Model):
    """A source line or instruction where stall samples concentrate.

    Attributes:
        location: ``file:line`` or a SASS/ISA address (``0x1a30``).
        text: the source line or instruction text.
        samples: stall samples attributed to it (count).
        share_pct: its share of all samples of the kernel, in percent.
        dominant_stall: the stall reason with most samples there, by the profiler's name.
    """

    location: str
    text: str | None = None
    samples: float | None = None
    share_pct: float | None = None
    dominant_stall: str | None = None


class IsaFacts(_Model):
    """Facts read from the machine code (SASS or AMDGCN) of one kernel.

    Attributes:
        instruction_counts: static count per opcode family (e.g. ``LDG.E.128``, ``HMMA``,
            ``buffer_load_dwordx4``).
        global_load_bits: widest global load width seen, in bits (``None`` when no loads).
        global_load_bits_min: narrowest global load width seen, in bits.
        spill_ops: static count of local/scratch spill instructions (``LDL``/``STL``, ``scratch_*``).
        tensor_instructions: static count of tensor-core / matrix-core instructions.
        registers_per_thread: registers (VGPRs on AMD) per thread.
        sgprs: scalar registers per wave (AMD only).
        spilled_registers: registers spilled as the compiler reports (``.vgpr_spill_count`` ...).
        scratch_bytes: private/scratch memory per thread in bytes.
        source: the artifact the facts come from.
    """

    instruction_counts: dict[str, int] = Field(default_factory=dict)
    global_load_bits: int | None = None
    global_load_bits_min: int | None = None
    spill_ops: int | None = None
    tensor_instructions: int | None = None
    registers_per_thread: int | None = None
    sgprs: int | None = None
    spilled_registers: int | None = None
    scratch_bytes: int | None = None
    source: str | None = None


class SourceMarker(_Model):
    """A profiler annotation attached to a source line or a SASS/ISA address (Nsight Compute source markers).

    Attributes:
        rule_id: the profiler rule that placed the marker (e.g. ``CPIStall``, ``UncoalescedGlobalAccess``).
        section: the section the rule belongs to, when known.
        location: ``file:line`` for a source marker, a function-relative SASS offset (``0x01a0``) for a SASS one.
        kind: ``source`` or ``sass``.
        message: the marker text.
        severity: the profiler's message type (``WARNING``, ``OPTIMIZATION``, ``INFO``, ...).
        share_pct: the share (percent) the message states, when it states one (e.g. "responsible for 46.3% of
            all warp stalls"); used for ranking.
    """

    rule_id: str
    section: str | None = None
    location: str
    kind: str
    message: str
    severity: str | None = None
    share_pct: float | None = None


class Metric(_Model):
    """A normalized metric value with its unit and provenance.

    Attributes:
        value: the value in ``unit``; ``None`` when not available (``missing_reason`` says why).
        unit: unit after normalization (``%``, ``us``, ``GB/s``, ``bytes``, ``count``, ...).
        source: the profiler metric(s) it was read from.
        missing_reason: why it is ``None`` (metric not collected, not on this architecture, ...).
    """

    value: float | None
    unit: str | None = None
    source: str | None = None
    missing_reason: str | None = None


class MetricSpread(_Model):
    """How one metric varied over the launches of a launch group (same kernel, same launch configuration).

    Attributes:
        median: the median over the launches that have a value (what ``KernelEvidence.metrics`` holds for
            an NVIDIA launch group; AMD entries hold the mean, as rocprof-compute does).
        min: the smallest value.
        max: the largest value.
        count: launches that have a value.
    """

    median: float
    min: float
    max: float
    count: int


class KernelEvidence(_Model):
    """Everything Stage 1 learned about one profiled kernel launch.

    Attributes:
        kernel_name: demangled kernel name as the profiler reports it.
        launch_id: the profiler's launch/dispatch index, when known.
        metrics: normalized metrics by their kernelopt name (units in names: ``duration_us``,
            ``dram_throughput_pct``, ...); see the vendor readers for the list.
        bottleneck: the bottleneck class.
        findings: rules that fired, most important first.
        profiler_rules: the profiler's own guided-analysis results, ranked by estimated speedup.
        hotspots: top source lines / instructions by stall samples.
        isa: machine-code facts, when the code was available.
        stall_breakdown_pct: warp stall reasons (profiler names) to their share of stall cycles in percent.
        occupancy_limiters: what limits theoretical occupancy, by the profiler's names (``registers``,
            ``shared_mem``, ``warps``, ``blocks``); several when tied; empty when unknown.
        source_markers: the profiler's source/SASS markers, most important first.
        grid: grid size per dimension as launched, when known (e.g. ``[1024, 1, 1]``).
        block: block size per dimension as launched, when known.
        notes: facts that are not metrics (e.g. "counters unavailable: timing from CUDA events").
        artifact: the report file the metrics were read from (relative to the profile folder when
            profiled by kernelopt).
        launch_count: launches of this kernel with this launch configuration that the entry stands for
            (1 for a single launch; a launch group's metrics are medians over its launches).
        launch_ids: the profiler's ids of those launches, in report order.
        metric_spread: per metric, median/min/max over the group's launches (groups of 2 or more).
        no_data_reason: set when every measured metric of the launch is n/a (an empty result): why that
            usually happens; rules do not run on it.
    """

    kernel_name: str
    launch_id: int | None = None
    metrics: dict[str, Metric] = Field(default_factory=dict)
    bottleneck: BottleneckType = BottleneckType.UNKNOWN
    findings: list[Finding] = Field(default_factory=list)
    profiler_rules: list[ProfilerRuleResult] = Field(default_factory=list)
    hotspots: list[Hotspot] = Field(default_factory=list)
    isa: IsaFacts | None = None
    stall_breakdown_pct: dict[str, float] = Field(default_factory=dict)
    occupancy_limiters: list[str] = Field(default_factory=list)
    source_markers: list[SourceMarker] = Field(default_factory=list)
    grid: list[int] | None = None
    block: list[int] | None = None
    notes: list[str] = Field(default_factory=list)
    artifact: str | None = None
    launch_count: int = 1
    launch_ids: list[int] = Field(default_factory=list)
    metric_spread: dict[str, MetricSpread] = Field(default_factory=dict)
    no_data_reason: str | None = None

    def metric(self, name: str) -> float | None:
        """The value of metric ``name``, or ``None`` when absent or not measured."""
        m = self.metrics.get(name)
        return None if m is None else m.value


CPU_EVIDENCE = "--device cpu:"
"""How the reason a ``--device cpu`` Stage 1 has no counters begins (``kernelopt profile``'s, the loop's)."""
CPU_TIMING_REASON = f"{CPU_EVIDENCE} no GPU profiler runs; the evidence is the kernel's CPU timing"
"""Why a ``--device cpu`` ``kernelopt profile`` has no counters."""


class ProfileSummary(_Model):
    """The content of ``profiles/v<N>/summary.json``.

    Attributes:
        schema_version: version of this file format.
        version: the kernel version profiled (``v<N>``), when profiled inside a workspace.
        vendor: GPU vendor.
        tool_used: profiler and version (``ncu 2025.3.1 --set full``), or ``timing-only``.
        gpu: GPU name as the profiler reports it.
        counters_available: False when hardware counters could not be read (timing-only evidence).
        counters_unavailable_reason: why, when they could not.
        artifacts: paths (relative to the profile folder) of the files the evidence was read from.
        kernels: one entry per profiled kernel launch.
        notes: what the profiler run left out or could not do (a mode that failed, an empty trace),
            one line each, so that a missing piece of evidence is explained rather than silent.
        settings: how the profile was taken (profiler argv, section set, launch filter), for audit.
    """

    schema_version: int = SUMMARY_SCHEMA_VERSION
    version: str | None = None
    vendor: Vendor
    tool_used: str
    gpu: str | None = None
    counters_available: bool = True
    counters_unavailable_reason: str | None = None
    artifacts: list[str] = Field(default_factory=list)
    kernels: list[KernelEvidence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    settings: dict[str, str | int | float | bool | list[str] | None] = Field(default_factory=dict)

    def gui_lines(self, folder: str) -> list[str]:
        """Where the profiler's own reports of this profile are and what opens them, one line each (``folder``: the
        profile folder as the reader should write it, ``profiles/v1``): Nsight Compute's ``.ncu-rep`` files, which
        stay on disk and out of the workspace's git (newuser20 n146: the report and ``kernelopt profile`` named
        ``summary.json`` alone, the evidence citing ``[ncu.ncu-rep (...)]`` with no path)."""
        return [
            f"Nsight Compute report: {folder}/{a} (open it in Nsight Compute's GUI: `ncu-ui {folder}/{a}`; "
            "on disk where the profile ran, out of git)"
            for a in self.artifacts
            if a.endswith(".ncu-rep")
        ]

    @property
    def timed_on_cpu(self) -> bool:
        """True for the timing-only evidence of ``--device cpu`` (no GPU ran the kernel)."""
        return (self.counters_unavailable_reason or "").startswith(CPU_EVIDENCE)

    @property
    def vendor_said(self) -> str:
        """The vendor as the evidence tells it: ``none (timed on the CPU)`` for ``--device cpu``'s timing, whose
        ``vendor`` field keeps the schema's default (its "vendor: nvidia" told of a GPU that never ran; loses20 l4)."""
        return "none (timed on the CPU)" if self.timed_on_cpu else self.vendor.value

    def primary(self) -> KernelEvidence | None:
        """The kernel that dominates run time (longest ``duration_us`` x ``launch_count``), or the first one."""
        if not self.kernels:
            return None
        return max(self.kernels, key=lambda k: (k.metric("duration_us") or 0.0) * k.launch_count)
