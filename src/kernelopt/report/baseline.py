"""``baseline_report.md``: the V0 evidence and performance, written by the loop after the baseline.

What the kernel does now, measured: latency, rates, % of peak and of the roofline bound, correctness,
the roofs with their sources, and the Stage 1 evidence of ``profiles/v0/`` (bottleneck, key metrics,
stall reasons, findings as evidence -> inference -> action, profiler rules, hotspots, ISA facts).
Unmeasured values print ``n/a``.
"""

from __future__ import annotations

from collections.abc import Sequence

from kernelopt.evidence.model import KernelEvidence, ProfileSummary
from kernelopt.evidence.summary import KEY_METRICS
from kernelopt.memory.model import IterationRecord
from kernelopt.report import cells
from kernelopt.report.markdown import table
from kernelopt.report.model import Ceiling
from kernelopt.report.reader import card_dtype, spec_ceilings
from kernelopt.taskcard import TaskCard
from kernelopt.workspace import Workspace


def _performance(record: IterationRecord) -> list[str]:
    p = record.performance
    rows = [
        ["latency (median)", cells.with_unit(p.latency_us, "us")],
        ["latency IQR", cells.with_unit(p.latency_iqr_us, "us")],
        ["achieved TFLOP/s", cells.num(p.tflops)],
        ["achieved GB/s", cells.num(p.bandwidth_gbps)],
        ["% of compute peak", cells.pct(p.tflops_peak_utilization_pct)],
        ["% of bandwidth peak", cells.pct(p.bandwidth_peak_utilization_pct)],
        ["% of the roofline bound", cells.pct(p.roofline_utilization_pct)],
        ["GPU", cells.text(p.gpu)],
        [
            "correctness",
            f"{record.correctness.status.value}, rel_err {cells.num(record.correctness.rel_err)}, "
            f"max abs err {cells.num(record.correctness.max_abs_err)}",
        ],
        ["quality gate", cells.text(record.quality_gate.result)],
        ["commit", cells.text(record.git_commit_hash)],
    ]
    for shape, lat in p.latency_us_by_shape.items():
        rows.append([f"latency, {shape}", cells.with_unit(lat, "us")])
    return table(("quantity", "value"), rows)


def _kernel_evidence(k: KernelEvidence, profile: str) -> list[str]:
    out = [f"### Kernel `{k.kernel_name}`", "", f"Bottleneck: **{k.bottleneck.value}**.", ""]
    names = [n for n in KEY_METRICS if n in k.metrics] + sorted(n for n in k.metrics if n not in KEY_METRICS)
    if names:
        rows = []
        for n in names:
            m = k.metrics[n]
            value = cells.num(m.value) if m.value is not None else f"n/a ({m.missing_reason or 'not measured'})"
            rows.append([n, value, cells.text(m.unit) if m.value is not None else "", cells.text(m.source)])
        out += table(("metric", "value", "unit", "source"), rows)
        out.append("")
    if k.stall_breakdown_pct:
        top = sorted(k.stall_breakdown_pct.items(), key=lambda kv: -kv[1])[:6]
        out += ["Warp stall reasons (share of stall cycles): " + ", ".join(f"{r} {p:.1f} %" for r, p in top), ""]
    out += ["Findings (evidence -> inference -> action):", ""]
    out += [f"- [{f.confidence.value}] `{f.rule_id}`: {cells.one_line(f.chain(), 600)}" for f in k.findings] or [
        "- no rule fired"
    ]
    out.append("")
    if k.profiler_rules:
        out += ["Profiler rules:", ""]
        for r in k.profiler_rules[:5]:
            est = f" (estimated speedup {r.estimated_speedup_pct:.1f} %)" if r.estimated_speedup_pct is not None else ""
            out.append(f"- `{r.rule_id}`{est}: {cells.one_line(r.message, 300)}")
        out.append("")
    if k.hotspots:
        out += ["Hotspots:", ""]
        out += [
            f"- {h.location} {cells.one_line(h.text, 120) if h.text else ''} "
            f"({cells.pct(h.share_pct)} of samples, {cells.text(h.dominant_stall)})"
            for h in k.hotspots[:5]
        ]
        out.append("")
    if k.isa is not None:
        isa = k.isa
        rows = [
            ["registers per thread", cells.num(isa.registers_per_thread)],
            ["spill instructions", cells.num(isa.spill_ops)],
            ["spilled registers", cells.num(isa.spilled_registers)],
            ["widest global load (bits)", cells.num(isa.global_load_bits)],
            ["narrowest global load (bits)", cells.num(isa.global_load_bits_min)],
            ["tensor instructions", cells.num(isa.tensor_instructions)],
            ["scratch bytes", cells.num(isa.scratch_bytes)],
        ]
        out += [f"ISA facts ({cells.text(isa.source or profile)}):", ""]
        out += table(("fact", "value"), rows)
        out.append("")
    return out


def _header(title: str, card: TaskCard, gpu: str | None, summary: ProfileSummary | None) -> list[str]:
    """Title, what the kernel is, its stop conditions, and the timing-only banner when it applies."""
    stop = card.stop_conditions
    out = [
        f"# {title}",
        "",
        f"Kernel type {cells.text(card.kernel_type)}, framework {cells.text(card.framework)}, "
        f"dtype {cells.text(card_dtype(card.dtype) or card.dtype)}, GPU {cells.text(gpu)}.",
        f"Stop conditions: {cells.pct(stop.roofline_utilization_pct)} of the roofline bound"
        + (f", target latency {cells.num(stop.target_latency_us)} us" if stop.target_latency_us else "")
        + (f", target speedup {stop.target_speedup}x" if stop.target_speedup else "")
        + (f", at most {stop.max_iterations} iterations" if stop.max_iterations is not None else "")
        + (f", at most {stop.max_wall_time_min} min" if stop.max_wall_time_min else "")
        + ".",
        "",
    ]
    if summary is not None and not summary.counters_available:
        out += [
            "> **Timing-only evidence**: hardware counters were unavailable "
            f"({summary.counters_unavailable_reason or 'reason not recorded'}). The evidence below comes from "
            "event timing, analytic FLOP/byte counts, compiler resource usage and ISA facts only.",
            "",
        ]
    return out


def _roofs(ceilings: Sequence[Ceiling], problem: str | None, roofline_lines: Sequence[str]) -> list[str]:
    """The spec sheet's roofs with their sources, and how the loop computed the bound."""
    out = ["## Roofs", ""]
    if ceilings:
        out += table(
            ("roof", "value", "source"), [[c.label, f"{cells.num(c.value)} {c.unit}", c.source] for c in ceilings]
        )
        out.append("")
    if problem:
        out += [f"- {problem}", ""]
    out += [f"- {line}" for line in roofline_lines]
    if roofline_lines:
        out.append("")
    return out


def _profile_evidence(summary: ProfileSummary | None) -> list[str]:
    out = ["## Profile evidence (profiles/v0/)", ""]
    if summary is None:
        return [*out, "No profile summary: n/a (Stage 1 produced no summary.json for V0).", ""]
    out.append(f"Tool: {summary.tool_used}; vendor {summary.vendor.value}; GPU {cells.text(summary.gpu)}.")
    if summary.artifacts:
        out.append("Artifacts: " + ", ".join(f"`profiles/v0/{a}`" for a in summary.artifacts))
    out.append("")
    for k in summary.kernels:
        out += _kernel_evidence(k, "profiles/v0/")
    if not summary.kernels:
        out += ["No kernel was captured.", ""]
    return out


def _record_sections(record: IterationRecord) -> list[str]:
    """What the V0 record adds: its evidence chain, ISA targets and open directions."""
    out: list[str] = []
    pe = record.profile_evidence
    if pe.evidence_summary or pe.evidence_chain:
        out += ["## Evidence chain (memory/v0.json)", ""]
        if pe.evidence_summary:
            out += [cells.one_line(pe.evidence_summary, 1000), ""]
        out += [f"- {cells.one_line(c, 600)}" for c in pe.evidence_chain]
        out.append("")
    if record.isa_metric_progress:
        out += ["## ISA targets", ""]
        out += table(
            ("metric", "target", "current", "met"),
            [
                [m.metric, m.target, cells.text(m.current), "yes" if m.met else ("no" if m.met is False else "n/a")]
                for m in record.isa_metric_progress
            ],
        )
        out.append("")
    if record.open_directions:
        out += ["## Open directions", ""]
        out += [f"- {cells.one_line(d, 400)}" for d in record.open_directions]
        out.append("")
    return out


def render_baseline(
    workspace: Workspace,
    record: IterationRecord,
    summary: ProfileSummary | None,
    *,
    roofline_lines: Sequence[str] = (),
) -> str:
    """The text of ``baseline_report.md``.

    Args:
        workspace: the workspace (task card, name).
        record: the V0 record after the baseline gate.
        summary: the V0 Stage 1 evidence (``profiles/v0/summary.json``), or None when profiling
            produced none.
        roofline_lines: how the loop computed the roofline bound (roofs and sources), shown as given.

    Raises:
        WorkspaceError: the task card's front matter is invalid.
    """
    card = workspace.task_card()
    gpu = card.gpu or record.performance.gpu or (summary.gpu if summary else None)
    spec, ceilings, problem = spec_ceilings(gpu, card_dtype(card.dtype))
    title = f"Baseline report: {workspace.name} ({record.version.upper()})"
    out = _header(title, card, spec.name if spec else gpu, summary)
    out += ["## Performance", "", *_performance(record), ""]
    out += _roofs(ceilings, problem, roofline_lines)
    out += _profile_evidence(summary)
    out += _record_sections(record)
    return "\n".join(out).rstrip() + "\n"


class BaselineRenderer:
    """The one renderer of ``baseline_report.md``: :func:`render_baseline` in the shape the loop injects
    (:class:`kernelopt.loop.protocols.BaselineRenderer`)."""

    def render(
        self,
        *,
        workspace: Workspace,
        record: IterationRecord,
        summary: ProfileSummary | None,
        roofline_lines: list[str],
    ) -> str:
        return render_baseline(workspace, record, summary, roofline_lines=roofline_lines)
