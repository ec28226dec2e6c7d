"""The spec's memory summary: one row per record (``kernelopt memory summary`` and the MCP ``memory_summary``)."""

from __future__ import annotations

from pydantic import BaseModel

from kernelopt.memory.model import IterationRecord


class SummaryRow(BaseModel):
    """One version in the summary (figures as the gate measured them; ``None`` when not measured)."""

    version: str
    masked: bool
    latency_us: float | None
    tflops: float | None
    bandwidth_gbps: float | None
    tflops_peak_utilization_pct: float | None
    bandwidth_peak_utilization_pct: float | None
    roofline_utilization_pct: float | None
    correctness: str
    quality_gate: str | None
    action_category: str | None
    git_commit_hash: str | None


def summary_rows(records: list[IterationRecord]) -> list[SummaryRow]:
    """One row per record: the spec's summary columns."""
    rows = []
    for r in records:
        p = r.performance
        rows.append(
            SummaryRow(
                version=r.version,
                masked=r.masked,
                latency_us=p.latency_us,
                tflops=p.tflops,
                bandwidth_gbps=p.bandwidth_gbps,
                tflops_peak_utilization_pct=p.tflops_peak_utilization_pct,
                bandwidth_peak_utilization_pct=p.bandwidth_peak_utilization_pct,
                roofline_utilization_pct=p.roofline_utilization_pct,
                correctness=r.correctness.status.value,
                quality_gate=r.quality_gate.result.value if r.quality_gate.result else None,
                action_category=r.optimization.action_category.value if r.optimization.action_category else None,
                git_commit_hash=r.git_commit_hash,
            )
        )
    return rows
