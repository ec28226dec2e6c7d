"""A deterministic profiler for tests: writes a fixed summary, starts no process, needs no GPU."""

from __future__ import annotations

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
from kernelopt.evidence.summary import write_summary
from kernelopt.profiling.protocol import ProfileSettings
from kernelopt.workspace import Workspace


def fake_summary(version: int) -> ProfileSummary:
    """The summary :class:`FakeProfiler` writes (a memory-bound kernel near the DRAM roof)."""
    dram = Metric(value=85.0, unit="%", source="gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
    kernel = KernelEvidence(
        kernel_name="fake_kernel",
        launch_id=0,
        metrics={
            "duration_us": Metric(value=10.0, unit="us", source="gpu__time_duration.sum"),
            "sm_throughput_pct": Metric(
                value=20.0, unit="%", source="sm__throughput.avg.pct_of_peak_sustained_elapsed"
            ),
            "memory_throughput_pct": Metric(value=85.0, unit="%", source="gpu__compute_memory_throughput"),
            "dram_throughput_pct": dram,
        },
        bottleneck=BottleneckType.MEMORY_BOUND,
        findings=[
            Finding(
                rule_id="nv.memory_bound_near_roof",
                symptom="memory_bound_near_roof",
                confidence=Confidence.HIGH,
                evidence=[
                    EvidenceItem(
                        metric=dram.source or "dram_throughput_pct",
                        value=85.0,
                        unit="%",
                        threshold=">= 80 %",
                        source="fake (dram_throughput_pct)",
                    )
                ],
                inference="DRAM is near its peak bandwidth",
                action_categories=[ActionCategory.REDUCE_BYTES],
            )
        ],
        artifact="fake",
    )
    return ProfileSummary(version=f"v{version}", vendor=Vendor.NVIDIA, tool_used="fake", kernels=[kernel])


class FakeProfiler:
    """Writes :func:`fake_summary` into ``profiles/v<N>/``."""

    name = "fake"

    def profile(self, workspace: Workspace, version: int, settings: ProfileSettings) -> ProfileSummary:
        summary = fake_summary(version)
        write_summary(workspace.profile_dir(version), summary)
        return summary
