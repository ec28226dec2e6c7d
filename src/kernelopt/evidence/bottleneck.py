"""Classify a kernel's bottleneck from its Speed-Of-Light throughputs (vendor-agnostic).

The classification follows Nsight Compute's SOLBottleneck rule: compute (``sm_throughput_pct``) and
memory (``memory_throughput_pct``) throughput as a share of peak; at or above 60% the more utilized side
is the bottleneck; below 60% on both the kernel is latency-bound, unless its grid cannot even fill the
device once (fewer than one wave, or fewer blocks than SMs), which makes it launch/occupancy-bound. Any
profiler whose reader fills those normalized metrics (NVIDIA or AMD) gets the same classification.
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kernelopt.evidence.model import BottleneckType, EvidenceItem, KernelEvidence
from kernelopt.evidence.rules import item, value
from kernelopt.evidence.thresholds import SMALL_GRID_WAVES, SOL_LATENCY_PCT


@dataclass
class Classification:
    """A bottleneck class with the evidence and the reasoning behind it.

    Attributes:
        bottleneck: the class.
        reason: one sentence saying why.
        evidence: the metrics the decision used.
    """

    bottleneck: BottleneckType
    reason: str
    evidence: list[EvidenceItem] = field(default_factory=list)


def classify(kernel: KernelEvidence) -> Classification:
    """The bottleneck class of ``kernel`` (``UNKNOWN`` when the throughputs are not measured)."""
    sm = value(kernel, "sm_throughput_pct")
    mem = value(kernel, "memory_throughput_pct")
    if sm is None or mem is None:
        missing = "sm_throughput_pct" if sm is None else "memory_throughput_pct"
        return Classification(BottleneckType.UNKNOWN, f"{missing} was not measured", [item(kernel, missing)])
    sol = [
        item(kernel, "sm_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
        item(kernel, "memory_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
    ]
    if max(sm, mem) >= SOL_LATENCY_PCT.value:
        if mem >= sm:
            return Classification(
                BottleneckType.MEMORY_BOUND,
                f"memory throughput {mem:.1f}% of peak is at or above {SOL_LATENCY_PCT.value:g}% and above compute "
                f"({sm:.1f}%)",
                sol,
            )
        return Classification(
            BottleneckType.COMPUTE_BOUND,
            f"compute throughput {sm:.1f}% of peak is at or above {SOL_LATENCY_PCT.value:g}% and above memory "
            f"({mem:.1f}%)",
            sol,
        )
    waves = value(kernel, "waves_per_sm")
    grid = value(kernel, "grid_size_blocks")
    sms = value(kernel, "sm_count")
    if (waves is not None and waves < SMALL_GRID_WAVES.value) or (grid is not None and sms and grid < sms):
        ev = [*sol, item(kernel, "waves_per_sm", threshold=SMALL_GRID_WAVES, op="<")]
        if grid is not None and sms:
            ev += [item(kernel, "grid_size_blocks"), item(kernel, "sm_count")]
        shown = f"{waves:.2f} waves per SM" if waves is not None else f"{grid:g} blocks on {sms:g} SMs"
        return Classification(
            BottleneckType.LAUNCH_OCCUPANCY_BOUND,
            f"compute and memory throughput are below {SOL_LATENCY_PCT.value:g}% and the grid fills the device less "
            f"than once ({shown})",
            ev,
        )
    return Classification(
        BottleneckType.LATENCY_BOUND,
        f"compute ({sm:.1f}%) and memory ({mem:.1f}%) throughput are both below {SOL_LATENCY_PCT.value:g}% of peak",
        sol,
    )
