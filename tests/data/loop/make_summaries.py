"""Regenerate the recorded Stage 1 summaries served by the loop tests' replay profiler.

The metric values are read from a real public Nsight Compute report (GTX 1660 SUPER, ``--set full``,
two dot-product kernels; /work/shared/fixtures-public/nvidia/ncu_gtx1660s_dotprod_full.ncu-rep) with
NVIDIA's ``ncu_report`` module, so the evidence the loop records is real profiler output:

    python tests/data/loop/make_summaries.py /path/to/ncu_gtx1660s_dotprod_full.ncu-rep

Writes ``summary_memory_bound.json`` (kernel ``dot_prod``) and ``summary_timing_only.json`` (the same
launch seen without counters, as after ERR_NVGPUCTRPERM) next to this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ncu_report

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import (
    BottleneckType,
    Confidence,
    EvidenceItem,
    Finding,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)

HERE = Path(__file__).parent
METRICS = {
    "duration_us": ("gpu__time_duration.sum", 1e-3, "us"),
    "sm_throughput_pct": ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    "memory_throughput_pct": ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    "dram_throughput_pct": ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1.0, "%"),
    "dram_gbps": ("dram__bytes.sum.per_second", 1e-9, "GB/s"),
    "l2_hit_rate_pct": ("lts__t_sector_hit_rate.pct", 1.0, "%"),
    "achieved_occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active", 1.0, "%"),
    "registers_per_thread": ("launch__registers_per_thread", 1.0, "count"),
    "waves_per_sm": ("launch__waves_per_multiprocessor", 1.0, "count"),
}


def main(report: Path) -> None:
    action = ncu_report.load_report(str(report)).range_by_idx(0).action_by_idx(1)
    src = report.name
    metrics = {
        name: Metric(value=float(action[m].value()) * scale, unit=unit, source=f"{src}: {m}")
        for name, (m, scale, unit) in METRICS.items()
    }
    stalls = {
        "long_scoreboard": action["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"].value(),
        "barrier": action["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"].value(),
        "mio_throttle": action["smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"].value(),
    }
    total = sum(stalls.values())
    sol = metrics["memory_throughput_pct"].value
    finding = Finding(
        rule_id="nv.memory_sol_high",
        symptom="dram_bandwidth_bound",
        confidence=Confidence.MEDIUM,
        evidence=[
            EvidenceItem(
                metric="gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                value=round(sol, 2) if sol is not None else None,
                unit="%",
                threshold=">= 60 %",
                threshold_source="Nsight Compute SOL rule (60 % of peak)",
                source=f"{src}: gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            )
        ],
        inference="memory throughput dominates: the kernel is memory-bound",
        action_categories=[ActionCategory.BLOCK_SIZE, ActionCategory.VECTORIZED_ACCESS],
    )
    kernel = KernelEvidence(
        kernel_name=action.name(),
        launch_id=1,
        metrics=metrics,
        bottleneck=BottleneckType.MEMORY_BOUND,
        findings=[finding],
        stall_breakdown_pct={k: round(100.0 * v / total, 2) for k, v in stalls.items()},
    )
    gpu = str(action["device__attribute_display_name"].value())
    full = ProfileSummary(
        vendor=Vendor.NVIDIA, tool_used="ncu --set full (recorded)", gpu=gpu, artifacts=[src], kernels=[kernel]
    )
    (HERE / "summary_memory_bound.json").write_text(full.model_dump_json(indent=2) + "\n")
    timing = ProfileSummary(
        vendor=Vendor.NVIDIA,
        tool_used="timing-only",
        gpu=gpu,
        counters_available=False,
        counters_unavailable_reason="ERR_NVGPUCTRPERM: no permission to read GPU performance counters",
        kernels=[
            KernelEvidence(
                kernel_name=action.name(),
                metrics={"duration_us": metrics["duration_us"]},
                bottleneck=BottleneckType.UNKNOWN,
            )
        ],
    )
    (HERE / "summary_timing_only.json").write_text(timing.model_dump_json(indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
