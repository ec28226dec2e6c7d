"""Every threshold the evidence rules compare against, each with its source (one copy of each number).

The NVIDIA reference is Nsight Compute's own guided analysis: the rule files shipped in
``<nsight-compute>/sections/*.py`` (read for Nsight Compute 2025.3.1; the values have been stable since
2022) and the Kernel Profiling Guide. The AMD thresholds (``AMD_*``) cite the ROCm documentation of the
metric; where AMD documents the metric but not a cut-off, the source says so and the cut-off is
kernelopt's own (with its reason): honest provenance, not invented vendor guidance. A threshold
kernelopt chose itself says so in its source.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Threshold:
    """A comparison value with its unit and where it comes from.

    Attributes:
        value: the number.
        unit: its unit (``%``, ``points``, ``waves``, ``threads``, ``bytes``, ...).
        source: the document or rule file the number is taken from, with the rule's wording.
    """

    value: float
    unit: str
    source: str

    def text(self, op: str) -> str:
        """``"<op> <value> <unit>"`` for an evidence item (``">= 60 %"``)."""
        v = f"{self.value:g}"
        return f"{op} {v} {self.unit}".strip()


_NCU = "Nsight Compute 2025.3 rule {rule} (sections/{file})"

SOL_LATENCY_PCT = Threshold(
    60.0,
    "%",
    _NCU.format(rule="SOLBottleneck", file="SpeedOfLight.py")
    + ": compute and memory throughput both below 60% of peak typically indicate latency issues",
)
SOL_HIGH_PCT = Threshold(
    80.0,
    "%",
    _NCU.format(rule="SOLBottleneck", file="SpeedOfLight.py")
    + ": above 80% of peak the workload is utilizing the available compute or memory performance",
)
SOL_BALANCE_POINTS = Threshold(
    10.0,
    "points",
    _NCU.format(rule="SOLBottleneck", file="SpeedOfLight.py")
    + ": one of compute and memory is more heavily utilized when they differ by >= 10 points",
)
SMALL_GRID_WAVES = Threshold(
    1.0,
    "waves",
    _NCU.format(rule="SOLBottleneck", file="SpeedOfLight.py")
    + ": fewer than 1 full wave across all SMs means the grid is too small to fill the device",
)
GRID_BELOW_SMS = Threshold(
    1.0,
    "blocks per SM",
    _NCU.format(rule="LaunchConfiguration", file="LaunchStatistics.py")
    + ": a grid with fewer blocks than the GPU has SMs underutilizes the device",
)
TAIL_EFFECT_SHARE = Threshold(
    20.0,
    "%",
    _NCU.format(rule="LaunchConfiguration", file="LaunchStatistics.py")
    + ": a tail effect is reported when there is at least one full wave, a partial wave, and its estimated"
    " share of the run time (1 / (full waves + 1)) is >= 20% (speedup_threshold = 20 in 2025.3.1)",
)
# The 2023 release of the same rule also required achieved occupancy below 0.8 x theoretical; kernelopt
# keeps that condition so that a tail is only reported when the last wave visibly under-fills the GPU.
TAIL_EFFECT_OCCUPANCY_RATIO = 0.8
ISSUE_ACTIVE_LOW_PCT = Threshold(
    60.0,
    "%",
    _NCU.format(rule="IssueSlotUtilization", file="IssueSlotUtilization.py")
    + ": schedulers issuing in fewer than 0.6 of cycles leave hardware underutilized",
)
ISSUE_ACTIVE_STALL_PCT = Threshold(
    80.0,
    "%",
    _NCU.format(rule="CPIStall", file="CPIStall.py") + ": stall reasons matter when issue active is below 0.8",
)
STALL_SHARE_PCT = Threshold(
    30.0,
    "%",
    _NCU.format(rule="CPIStall", file="CPIStall.py")
    + ": a stall reason taking more than 30% of the cycles between two issued instructions",
)
HOTSPOT_SHARE_PCT = Threshold(
    10.0,
    "%",
    _NCU.format(rule="CPIStall", file="CPIStall.py")
    + ": a line holding more than 10% of all stall samples gets a source marker",
)
OCCUPANCY_GAP_POINTS = Threshold(
    10.0,
    "points",
    _NCU.format(rule="AchievedOccupancy", file="AchievedOccupancy.py")
    + ": theoretical minus achieved occupancy above 10 points",
)
THEORETICAL_OCCUPANCY_LOW_PCT = Threshold(
    80.0,
    "%",
    _NCU.format(rule="TheoreticalOccupancy", file="TheoreticalOccupancy.py")
    + ": theoretical warps below 80% of the hardware maximum",
)
ACTIVE_THREADS_MIN = Threshold(
    24.0,
    "threads",
    _NCU.format(rule="ThreadDivergence", file="ThreadDivergence.py")
    + ": fewer than 24 of 32 threads active (or not predicated off) per executed instruction",
)
BANK_CONFLICT_PCT = Threshold(
    10.0,
    "%",
    _NCU.format(rule="SharedMemoryConflicts", file="SharedMemoryConflicts.py")
    + ": bank conflicts >= 10% of the shared load or store wavefronts",
)
SECTOR_BYTES_MAX = Threshold(
    32.0,
    "bytes",
    _NCU.format(rule="MemoryCacheAccessPattern", file="MemoryCacheAccessPattern.py")
    + ": fewer bytes used per 32-byte sector than the maximum means a stride between threads",
)
SECTOR_WASTE_MIN_PCT = Threshold(
    10.0,
    "%",
    "kernelopt: a global access pattern is reported when at least 10% of each sector is wasted "
    "(materiality floor, the same 10% NCU's SharedMemoryConflicts rule uses); NCU's "
    "MemoryCacheAccessPattern rule reports any waste",
)
PIPE_HIGH_PCT = Threshold(
    60.0,
    "%",
    _NCU.format(rule="HighPipeUtilization", file="HighPipeUtilization.py")
    + ": a pipe at >= 60% of its peak active cycles is highly utilized (>= 80%: likely the bottleneck)",
)
PIPE_LOW_PCT = Threshold(
    20.0,
    "%",
    _NCU.format(rule="HighPipeUtilization", file="HighPipeUtilization.py")
    + ": a pipe below 20% of its peak is under-utilized",
)
WARP_SIZE = Threshold(
    32.0,
    "threads",
    _NCU.format(rule="LaunchConfiguration", file="LaunchStatistics.py")
    + ": threads execute in warps of 32; a block size that is not a multiple of 32 masks threads off",
)
SPILL_ANY = Threshold(
    0.0,
    "inst",
    "Nsight Compute Kernel Profiling Guide (Memory Workload Analysis, local memory): local memory holds "
    "register spills; any spill traffic adds memory latency to every access",
)
VECTOR_LOAD_BITS = Threshold(
    128.0,
    "bits",
    "NVIDIA Developer Blog, 'CUDA Pro Tip: Increase Performance with Vectorized Memory Access': 128-bit loads "
    "(LDG.E.128) move 16 bytes per thread with one instruction; narrower loads need more instructions for "
    "the same bytes",
)
IDEAL_SECTORS_PER_REQUEST = Threshold(
    1.0,
    "x ideal",
    "CUDA C++ Best Practices Guide, Coalesced Access to Global Memory: a warp whose 32 threads access "
    "consecutive words needs (access bytes x 32 / 32-byte sector) sectors per request, e.g. 4 for 32-bit "
    "loads; more sectors per request means the accesses are spread out",
)
TRAFFIC_SHARE_MIN_PCT = Threshold(
    10.0,
    "%",
    "kernelopt: an access-pattern finding needs the accesses to carry at least 10% of the kernel's global "
    "L1 sectors (materiality floor; eight stores in a kernel that reads megabytes are not a bottleneck)",
)

# -- AMD (CDNA3/CDNA4) --------------------------------------------------------------------------------

_ROCPROF_COMPUTE = "ROCm Compute Profiler (rocprof-compute) documentation, gfx942 analysis configs"

AMD_NARROW_LOAD_SHARE_PCT = Threshold(
    50.0,
    "%",
    "spec 'AMD Assembly Analysis' (many buffer_load_dword, few dwordx4 -> vectorization insufficient); "
    "128-bit per lane is the widest global load (AMD CDNA3 ISA guide, FLAT/MUBUF dwordx4); cut-off: kernelopt, "
    "most static loads narrower than 128 bit",
)
AMD_LDS_BANK_CONFLICT_PCT = Threshold(
    10.0,
    "%",
    f"metric: Bank Conflict Rate, % of active LDS cycles spent on bank conflicts ({_ROCPROF_COMPUTE}, "
    "'Local data share'); cut-off: kernelopt, one cycle in ten serialized",
)
AMD_SPILLS = Threshold(
    0.0,
    "",
    "LLVM AMDGPU code-object metadata .vgpr_spill_count/.sgpr_spill_count (AMDGPUUsage); any spill "
    "goes to scratch (off-chip) memory; cut-off: more than zero",
)
AMD_OCCUPANCY_LIMITER_PCT = Threshold(
    10.0,
    "%",
    f"metric: Insufficient SIMD VGPRs / CU LDS, % of cycles a workgroup could not be scheduled "
    f"({_ROCPROF_COMPUTE}, 'Workgroup manager - resource allocation'); cut-off: kernelopt",
)
AMD_LOW_OCCUPANCY_FRACTION = Threshold(
    0.5,
    "",
    "compiler '; Occupancy' (waves per SIMD, LLVM AMDGPU) against the machine's Max_Waves_Per_Simd "
    "(agent_info.csv); cut-off: kernelopt, half of the wave slots or fewer",
)
AMD_MIN_WORKGROUPS = Threshold(
    1024.0,
    "",
    "ROCm docs 'Optimizing Triton kernels' (MI300X): 'the grid should have at least 1024 thread blocks or workgroups'",
)
AMD_VALU_BUSY_PCT = Threshold(50.0, "%", f"metric: VALU Utilization ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt")
AMD_MFMA_IDLE_PCT = Threshold(10.0, "%", f"metric: MFMA Utilization ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt")
AMD_MIN_STATIC_FMA = Threshold(32.0, "", "kernelopt: enough static VALU FMA/dot instructions to be matrix work")
AMD_WAITCNT_SHARE_PCT = Threshold(
    30.0,
    "%",
    "rocprofv3 'Using thread trace' (stats CSV: Latency = stall + issue cycles per instruction); cut-off: "
    "kernelopt, waits hold 30% or more of the traced cycles",
)
AMD_BARRIER_SHARE_PCT = Threshold(20.0, "%", "rocprofv3 'Using thread trace' stats CSV; cut-off: kernelopt")
AMD_L2_HIT_RATE_PCT = Threshold(
    50.0,
    "%",
    f"metric: L2 Cache Hit Rate = 100*TCC_HIT/(TCC_HIT+TCC_MISS) ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt, "
    "more misses than hits",
)
AMD_SOL_HIGH_PCT = Threshold(
    SOL_LATENCY_PCT.value,
    SOL_LATENCY_PCT.unit,
    "Nsight Compute SOLBottleneck rule: 'achieved compute throughput and/or memory bandwidth below 60.0% of "
    "peak typically indicate latency issues'; the same cut-off is applied to AMD pipes for one vendor-neutral "
    "taxonomy",
)
