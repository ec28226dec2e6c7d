"""The evidence as an agent asks for it first: per kernel, its key metrics and top findings with their measured
values and units, in a few kB.

``kernelopt mcp``'s ``evidence`` returned the whole :class:`~kernelopt.evidence.model.ProfileSummary`: 35-90 kB of
JSON for one real Nsight Compute report (every metric of every kernel, every evidence item's artifact, every
profiler rule's full text), all of it in the agent's context. By default it now returns this digest, read from the
same summary by the same rules and names ``summary.txt`` shows (:data:`kernelopt.evidence.summary.KEY_METRICS`,
:meth:`EvidenceItem.render` less its artifact, which is said once per kernel), and says how to ask for the whole
evidence (``full=true``) or one kernel (``kernel=...``). ``compare`` likewise returned every metric's change with
its full floats, 18 kB for one kernel pair; :func:`diff_digest` keeps the key metrics and the largest changes.
Pure: no I/O.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from kernelopt.digits import sig
from kernelopt.evidence.diff import KernelDiff, MetricChange, SummaryDiff
from kernelopt.evidence.model import Finding, KernelEvidence, ProfilerRuleResult, ProfileSummary
from kernelopt.evidence.summary import CONFIG_METRICS, KEY_METRICS
from kernelopt.oneline import one_line

KERNELS = 6
"""The most kernels a digest shows, those with the longest total duration first (a report may hold hundreds)."""

FINDINGS = 3
"""The top findings shown per kernel (the summary ranks them, most important first)."""

RULES = 3
"""The profiler's own rule results shown per kernel (ranked by its estimated speedup)."""

HOTSPOTS = 3
"""The source lines / instructions shown per kernel (by stall samples)."""

STALLS = 5
"""The warp stall reasons shown per kernel (by share)."""

NOTES = 5
"""The summary's notes shown (what the profiler run left out)."""

TEXT_CHARS = 240
"""A profiler rule's line, a note or a hotspot's line is cut to this many characters."""

FINDING_CHARS = 800
"""A finding's line is cut to this many characters (its facts, inference and actions: 300-700 on real reports)."""

NAME_CHARS = 160
"""A kernel's name is cut to this many characters (a C++ template instance runs to kilobytes)."""


DIGITS = 4
"""Significant digits of a metric's value (``summary.txt`` and the evidence lines print as many)."""


class MetricValue(BaseModel):
    """A measured value, to :data:`DIGITS` significant digits, and its unit."""

    value: float
    unit: str | None = None


class KernelDigest(BaseModel):
    """One kernel (or one launch group) in brief.

    Attributes:
        kernel_name: the kernel, cut to :data:`NAME_CHARS`.
        launch_count: launches the entry stands for (its metrics are medians over them).
        launch: ``grid [x, y, z] block [x, y, z]``, when known.
        bottleneck: the bottleneck class.
        metrics: the key metrics measured, by kernelopt's names (``duration_us``, ``dram_throughput_pct``, ...); where
            fewer than half of them were measured (an AMD profile's counters), other measured metrics by name, up to
            as many.
        not_measured: the key metrics the input does not have.
        stalls_pct: the top warp stall reasons, by the profiler's names, percent of stall cycles.
        occupancy_limiters: what limits theoretical occupancy.
        findings: the top findings, each ``[confidence] rule @ location: evidence; ... -> inference -> try actions``
            (every fact ``metric = value unit (threshold ...)``, the profiler's metric name: a plan cites these).
        profiler_rules: the profiler's top rule results, ``rule (est. speedup N% scope): message``.
        hotspots: the top hotspots, ``location share% stall: source line``.
        artifact: the report the values were read from.
        no_data_reason: why every measured metric is n/a, when so.
        left_out: what the digest leaves out of this kernel (``82 more metrics, 3 more findings``).
    """

    kernel_name: str
    launch_count: int = 1
    launch: str | None = None
    bottleneck: str
    metrics: dict[str, MetricValue]
    not_measured: list[str] = []
    stalls_pct: dict[str, float] = {}
    occupancy_limiters: list[str] = []
    findings: list[str] = []
    profiler_rules: list[str] = []
    hotspots: list[str] = []
    artifact: str | None = None
    no_data_reason: str | None = None
    left_out: str | None = None


class EvidenceDigest(BaseModel):
    """A report, profile folder or summary in brief.

    Attributes:
        tool_used: the profiler and its settings, or ``timing-only``.
        vendor: ``nvidia`` or ``amd``; ``none (timed on the CPU)`` for ``--device cpu``'s timing.
        gpu: the GPU, as the profiler names it.
        version: ``v<N>`` when profiled in a workspace.
        counters_available: ``False`` for timing-only evidence (``counters_unavailable_reason`` says why).
        notes: what the profiler run left out, one line each.
        kernel_count: how many kernels (launch groups) the evidence holds.
        kernels: the :data:`KERNELS` with the longest total duration, longest first.
        more: how to ask for the whole evidence or one kernel.
    """

    tool_used: str
    vendor: str
    gpu: str | None = None
    version: str | None = None
    counters_available: bool
    counters_unavailable_reason: str | None = None
    notes: list[str] = []
    kernel_count: int
    kernels: list[KernelDigest]
    more: str


def _finding(f: Finding) -> str:
    """The finding's :meth:`Finding.chain` less the artifact of each fact, cut to :data:`FINDING_CHARS`."""
    where = f" @ {f.location}" if f.location else ""
    return one_line(f"[{f.confidence.value}] {f.rule_id}{where}: {f.chain(with_source=False)}", FINDING_CHARS)


def _rule(r: ProfilerRuleResult) -> str:
    scope = f" {r.speedup_type}" if r.speedup_type else ""
    speedup = f" (est. speedup {r.estimated_speedup_pct:.1f}%{scope})" if r.estimated_speedup_pct is not None else ""
    return one_line(f"{r.rule_id}{speedup}: {r.message}", TEXT_CHARS)


def _more(count: int, what: str) -> str | None:
    return f"{count} more {what}" if count > 0 else None


def kernel_digest(k: KernelEvidence) -> KernelDigest:
    """One kernel in brief: its key metrics, top stalls, findings, profiler rules and hotspots."""
    metrics: dict[str, MetricValue] = {}
    not_measured = []
    for name in KEY_METRICS:
        m = k.metrics.get(name)
        if m is not None and m.value is None:
            not_measured.append(name)
        elif m is not None and m.value is not None:
            metrics[name] = MetricValue(value=float(f"{m.value:.{DIGITS}g}"), unit=m.unit)
    # a profiler with other names (rocprofv3 counters, ATT stats: att_*, vgprs_*, lds_*) has few key metrics (fewer
    # than half): the measured others fill the digest up to as many, in the order summary.txt lists them (by name)
    fill = len(metrics) < len(KEY_METRICS) // 2
    for name in sorted(k.metrics) if fill else ():
        m = k.metrics[name]
        if len(metrics) >= len(KEY_METRICS):
            break
        if name not in metrics and name not in CONFIG_METRICS and m.value is not None:
            metrics[name] = MetricValue(value=float(f"{m.value:.{DIGITS}g}"), unit=m.unit)
    stalls = sorted(k.stall_breakdown_pct.items(), key=lambda kv: -kv[1])[:STALLS]
    hotspots = []
    for h in k.hotspots[:HOTSPOTS]:
        share = f" {h.share_pct:.1f}%" if h.share_pct is not None else ""
        stall = f" {h.dominant_stall}" if h.dominant_stall else ""
        hotspots.append(one_line(f"{h.location}{share}{stall}: {h.text or ''}".rstrip(": "), TEXT_CHARS))
    left = [
        _more(len(k.metrics) - len(metrics) - len(not_measured), "metrics"),
        _more(len(k.findings) - FINDINGS, "findings"),
        _more(len(k.profiler_rules) - RULES, "profiler rules"),
        _more(len(k.hotspots) - HOTSPOTS, "hotspots"),
        _more(len(k.source_markers), "source markers"),
    ]
    launch = f"grid {k.grid or '?'} block {k.block or '?'}" if k.grid or k.block else None
    return KernelDigest(
        kernel_name=one_line(k.kernel_name, NAME_CHARS),
        launch_count=k.launch_count,
        launch=launch,
        bottleneck=k.bottleneck.value,
        metrics=metrics,
        not_measured=not_measured,
        stalls_pct={r: round(p, 1) for r, p in stalls},
        occupancy_limiters=k.occupancy_limiters,
        findings=[_finding(f) for f in k.findings[:FINDINGS]],
        profiler_rules=[_rule(r) for r in k.profiler_rules[:RULES]],
        hotspots=hotspots,
        artifact=k.artifact,
        no_data_reason=one_line(k.no_data_reason, TEXT_CHARS) if k.no_data_reason else None,
        left_out=", ".join(x for x in left if x) or None,
    )


def _total_us(k: KernelEvidence) -> float:
    return (k.metric("duration_us") or 0.0) * k.launch_count


def digest(summary: ProfileSummary, *, more: str) -> EvidenceDigest:
    """The digest of ``summary``; ``more`` says how to ask for the whole evidence or one kernel."""
    ranked = sorted(summary.kernels, key=_total_us, reverse=True)  # stable: report order among equals
    shown = ranked[:KERNELS]
    left = len(summary.kernels) - len(shown)
    return EvidenceDigest(
        tool_used=summary.tool_used,
        vendor=summary.vendor_said,
        gpu=summary.gpu,
        version=summary.version,
        counters_available=summary.counters_available,
        counters_unavailable_reason=summary.counters_unavailable_reason,
        notes=[one_line(n, TEXT_CHARS) for n in summary.notes[:NOTES]]
        + ([f"{len(summary.notes) - NOTES} more notes"] if len(summary.notes) > NOTES else []),
        kernel_count=len(summary.kernels),
        kernels=[kernel_digest(k) for k in shown],
        more=(f"{left} more kernels (the shortest); " if left > 0 else "") + more,
    )


def whole_evidence(path: str | Path, *, kernel: str | None = None) -> str:
    """Where the whole evidence of ``path`` is (``more`` of a digest): the MCP ``evidence`` call that returns it."""
    if kernel is not None:
        return f"the whole evidence: evidence(path={str(path)!r}, kernel={kernel!r}, full=true)"
    return f"the whole evidence: evidence(path={str(path)!r}, full=true), or kernel=NAME for one kernel's"


CHANGES = 8
"""The largest relative changes shown per kernel pair, beside the key metrics."""


class KernelChange(BaseModel):
    """One kernel pair's change in brief.

    Attributes:
        kernel: ``before -> after`` when renamed, else the kernel, cut to :data:`NAME_CHARS`.
        bottleneck: ``memory_bound -> compute_bound``, or the one kept.
        key_metrics: each key metric measured on both sides, ``name: before -> after unit (+12.3 %)``.
        largest_changes: the other metrics that changed most, relatively, in the same form.
        symptoms_added, symptoms_removed: the findings' symptoms that appeared and disappeared.
        isa_changes: machine-code facts that changed, ``name: before -> after``.
        left_out: how many changed metrics the digest leaves out.
    """

    kernel: str
    bottleneck: str
    key_metrics: list[str]
    largest_changes: list[str] = []
    symptoms_added: list[str] = []
    symptoms_removed: list[str] = []
    isa_changes: list[str] = []
    left_out: str | None = None


class DiffDigest(BaseModel):
    """Two profiles' change in brief: each kernel pair, the kernels found on one side only, and how to ask for all."""

    before: str
    after: str
    kernels: list[KernelChange]
    unmatched_before: list[str] = []
    unmatched_after: list[str] = []
    more: str


def _change(m: MetricChange) -> str:
    unit = f" {m.unit}" if m.unit else ""
    rel = f" ({m.delta_pct:+.1f} %)" if m.delta_pct is not None else ""
    return f"{m.name}: {sig(m.before, DIGITS)} -> {sig(m.after, DIGITS)}{unit}{rel}"


def _kernel_change(k: KernelDiff) -> KernelChange:
    key = {m.name: m for m in k.metrics if m.name in KEY_METRICS}
    others = [m for m in k.metrics if m.name not in key and m.delta != 0]
    others.sort(key=lambda m: -abs(m.delta_pct) if m.delta_pct is not None else 0.0)
    shown = others[:CHANGES]
    name = k.before_kernel if k.before_kernel == k.after_kernel else f"{k.before_kernel} -> {k.after_kernel}"
    moved = k.bottleneck_before != k.bottleneck_after
    return KernelChange(
        kernel=one_line(name, NAME_CHARS),
        bottleneck=f"{k.bottleneck_before} -> {k.bottleneck_after}" if moved else k.bottleneck_after,
        key_metrics=[_change(key[n]) for n in KEY_METRICS if n in key],
        largest_changes=[_change(m) for m in shown],
        symptoms_added=k.symptoms_added,
        symptoms_removed=k.symptoms_removed,
        isa_changes=[f"{n}: {a} -> {b}" for n, (a, b) in k.isa_changes.items()],
        left_out=_more(len(others) - len(shown), "changed metrics"),
    )


def diff_digest(diff: SummaryDiff, *, more: str) -> DiffDigest:
    """The digest of ``diff``; ``more`` says how to ask for every metric's change."""
    return DiffDigest(
        before=diff.before,
        after=diff.after,
        kernels=[_kernel_change(k) for k in diff.kernels],
        unmatched_before=[one_line(n, NAME_CHARS) for n in diff.unmatched_before],
        unmatched_after=[one_line(n, NAME_CHARS) for n in diff.unmatched_after],
        more=more,
    )
