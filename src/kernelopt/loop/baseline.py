"""The built-in ``baseline_report.md`` renderer, used when the report package offers none. Pure.

Kept small: V0's measured performance, both roofline bounds, correctness, the Stage 1 evidence, and
a clear line when the evidence is timing-only.
"""

from __future__ import annotations

from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.model import IterationRecord
from kernelopt.workspace import Workspace


def _v(value: float | None, unit: str = "") -> str:
    if value is None:
        return "n/a"
    return f"{value:.4g}{(' ' + unit) if unit else ''}"


class BuiltinBaselineRenderer:
    """Renders the baseline report from the V0 record and its profile summary."""

    def render(
        self,
        *,
        workspace: Workspace,
        record: IterationRecord,
        summary: ProfileSummary | None,
        roofline_lines: list[str],
    ) -> str:
        p = record.performance
        lines = [f"# Baseline report: {workspace.name} (V0)", ""]
        if summary is not None and not summary.counters_available:
            lines += [
                "> **Timing-only evidence**: hardware counters were unavailable "
                f"({summary.counters_unavailable_reason or 'reason unknown'}). The evidence below comes "
                "from timing and analytic FLOP/byte counts only.",
                "",
            ]
        lines += [
            "## Performance",
            "",
            "| quantity | value |",
            "|---|---|",
            f"| GPU | {p.gpu or 'n/a'} |",
            f"| latency (median) | {_v(p.latency_us, 'us')} |",
            f"| latency IQR | {_v(p.latency_iqr_us, 'us')} |",
            f"| TFLOP/s | {_v(p.tflops)} |",
            f"| GB/s | {_v(p.bandwidth_gbps)} |",
            f"| % of compute peak | {_v(p.tflops_peak_utilization_pct, '%')} |",
            f"| % of bandwidth peak | {_v(p.bandwidth_peak_utilization_pct, '%')} |",
            "",
        ]
        if p.latency_us_by_shape:
            lines += ["| shape | latency (us) |", "|---|---|"]
            lines += [f"| {shape} | {lat:.4g} |" for shape, lat in p.latency_us_by_shape.items()]
            lines.append("")
        lines += ["## Roofline", ""] + [f"- {line}" for line in roofline_lines] + [""]
        c = record.correctness
        lines += [
            "## Correctness",
            "",
            f"status {c.status.value}, rel_err {_v(c.rel_err)}, max abs err {_v(c.max_abs_err)}"
            + (f" ({c.message})" if c.message else ""),
            "",
            "## Stage 1 evidence",
            "",
        ]
        if summary is None:
            lines.append("no profile summary")
        else:
            lines.append(f"tool: {summary.tool_used}" + (f", GPU {summary.gpu}" if summary.gpu else ""))
            for k in summary.kernels:
                lines += ["", f"### {k.kernel_name}", "", f"bottleneck: {k.bottleneck.value}", ""]
                for f in k.findings:
                    lines.append(f"- [{f.confidence.value}] {f.rule_id}: {f.chain()}")
                if not k.findings:
                    lines.append("- no evidence rule fired")
        if record.isa_metric_progress:
            lines += ["", "## ISA targets", "", "| metric | target | current | met |", "|---|---|---|---|"]
            for m in record.isa_metric_progress:
                lines.append(f"| {m.metric} | {m.target} | {m.current if m.current is not None else 'n/a'} | {m.met} |")
        return "\n".join(lines).rstrip() + "\n"
