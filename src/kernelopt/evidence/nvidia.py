"""Turn what Nsight Compute recorded into typed evidence for one launch or a whole report.

Steps per launch: normalize metrics, compute the stall breakdown and occupancy limiters, rank the
profiler's rule results and source markers, find hotspots, read ISA facts from SASS, classify the
bottleneck, run the NVIDIA evidence rules. Pure: no I/O (readers live in :mod:`kernelopt.profiling`).
"""

from __future__ import annotations

from kernelopt.evidence.bottleneck import classify
from kernelopt.evidence.hotspots import display_path, rank_hotspots
from kernelopt.evidence.model import IsaFacts, KernelEvidence, Metric, ProfileSummary, SourceMarker, Vendor
from kernelopt.evidence.ncu_guided import add_guided_findings
from kernelopt.evidence.nvidia_metrics import normalize, occupancy_limiters, stall_breakdown
from kernelopt.evidence.nvidia_rules import NVIDIA_RULES
from kernelopt.evidence.profiler_rules import rank_rule_results, rank_source_markers
from kernelopt.evidence.raw import RawKernel, RawReport
from kernelopt.evidence.rules import RuleTable, run_rules
from kernelopt.evidence.sass import SassInstruction, isa_facts, parse_instruction
from kernelopt.evidence.summary import group_launches, mark_empty


def report_isa(kernel: RawKernel) -> IsaFacts | None:
    """ISA facts from the SASS the report holds (instructions that executed at least once)."""
    if not kernel.sass:
        return None
    instructions: list[SassInstruction] = []
    for addr, text in sorted(kernel.sass.items()):
        offset = addr - kernel.function_pc if kernel.function_pc is not None and addr >= kernel.function_pc else addr
        ins = parse_instruction(text, offset)
        if ins is not None:
            instructions.append(ins)
    regs = kernel.value("launch__registers_per_thread")
    return isa_facts(
        instructions,
        source=f"{kernel.artifact} (SASS of executed instructions)",
        registers_per_thread=int(regs) if regs is not None else None,
    )


def carried_metrics(raw: RawKernel, normalized: dict[str, Metric]) -> dict[str, Metric]:
    """Every row of a CSV export that no normalized metric reads, under the profiler's own name.

    A details, section or ``--metrics`` export carries what the user asked for (a roofline section,
    PM sampling, a metric list); each row is kept (``details:<section>/<label>`` when the row has no
    metric name) rather than dropped. Rows of ``.ncu-rep`` reports (no ``label``) are not carried: a
    full report holds thousands of raw metrics that the normalized set already summarizes.
    """
    used = " ".join(m.source or "" for m in normalized.values())
    out: dict[str, Metric] = {}
    for name, rm in raw.metrics.items():
        if rm.label is None or name in normalized or name in used:
            continue
        out[name] = Metric(
            value=rm.value,
            unit=rm.unit or None,
            source=f"{raw.artifact}: {rm.label}",
            missing_reason="the profiler reported n/a" if rm.value is None else None,
        )
    return out


def _relativize(markers: list[SourceMarker], source_root: str | None) -> list[SourceMarker]:
    if not source_root:
        return markers
    out = []
    for m in markers:
        if m.kind == "source" and ":" in m.location:
            path, _, line = m.location.rpartition(":")
            m = m.model_copy(update={"location": f"{display_path(path, source_root)}:{line}"})
        out.append(m)
    return out


def build_kernel_evidence(
    raw: RawKernel,
    *,
    source_root: str | None = None,
    isa: IsaFacts | None = None,
    rules: RuleTable = NVIDIA_RULES,
) -> KernelEvidence:
    """All evidence for one profiled launch.

    Args:
        raw: the launch as the report stores it.
        source_root: folder that source paths are shown relative to (the workspace), when known.
        isa: ISA facts from the full static SASS of the kernel (preferred over the report's SASS, which
            lists only executed instructions).
        rules: the rule set to run.
    """
    metrics = normalize(raw)
    metrics.update(carried_metrics(raw, metrics))
    stalls, _ = stall_breakdown(raw, metrics)
    ranked_rules = rank_rule_results(raw.rules)
    kernel = KernelEvidence(
        kernel_name=raw.name,
        launch_id=raw.launch_id,
        metrics=metrics,
        profiler_rules=ranked_rules,
        hotspots=rank_hotspots(
            raw.per_pc,
            sass=raw.sass,
            source_lines=raw.source_lines,
            source_text=raw.source_text,
            function_pc=raw.function_pc,
            source_root=source_root,
        ),
        isa=isa if isa is not None else report_isa(raw),
        stall_breakdown_pct=dict(sorted(stalls.items(), key=lambda kv: -kv[1])),
        occupancy_limiters=occupancy_limiters(metrics),
        source_markers=_relativize(rank_source_markers(raw.markers, ranked_rules), source_root),
        grid=raw.grid,
        block=raw.block,
        artifact=raw.artifact,
    )
    evaluate_kernel(kernel, rules)
    return kernel


def evaluate_kernel(kernel: KernelEvidence, rules: RuleTable = NVIDIA_RULES) -> None:
    """Classify the bottleneck and run the rules on ``kernel``'s metrics (a launch or a launch group)."""
    kernel.bottleneck = classify(kernel).bottleneck
    kernel.findings = run_rules(kernel, rules)
    kernel.findings += add_guided_findings(kernel)


def build_summary(
    report: RawReport,
    *,
    version: str | None = None,
    tool_used: str | None = None,
    source_root: str | None = None,
    isa_by_kernel: dict[str, IsaFacts] | None = None,
    artifacts: list[str] | None = None,
    per_launch: bool = False,
) -> ProfileSummary:
    """A :class:`ProfileSummary` of ``report``: one entry per kernel and launch configuration.

    Repeated launches of one kernel with one launch configuration become one launch group (count,
    medians, spread; :func:`kernelopt.evidence.summary.group_launches`), and the rules run on the group;
    ``per_launch`` keeps one entry per launch instead. A launch whose metrics are all n/a is flagged as
    an empty result (:func:`kernelopt.evidence.summary.mark_empty`), with a note at the top.

    Args:
        report: the report as read.
        version: ``v<N>`` when the report belongs to a workspace version.
        tool_used: how the report was taken (default: the report's tool).
        source_root: folder source paths are shown relative to.
        isa_by_kernel: static ISA facts by kernel function name (from the compiled kernels).
        artifacts: files of the profile folder the evidence comes from.
        per_launch: one entry per launch, no grouping.
    """
    kernels = []
    for raw in report.kernels:
        isa = None
        if isa_by_kernel:
            isa = isa_by_kernel.get(raw.function_name or "") or isa_by_kernel.get(raw.name)
        kernels.append(build_kernel_evidence(raw, source_root=source_root, isa=isa))
    notes = mark_empty(kernels)
    if not per_launch:
        kernels = group_launches(kernels, evaluate_kernel)
    gpu = next((k.gpu for k in report.kernels if k.gpu), None)
    return ProfileSummary(
        version=version,
        vendor=Vendor.NVIDIA,
        tool_used=tool_used or report.tool,
        gpu=gpu,
        artifacts=artifacts if artifacts is not None else [report.path],
        kernels=kernels,
        notes=notes,
    )
