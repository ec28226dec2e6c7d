"""Normalize Nsight Compute metrics into kernelopt's metric names (units in the names).

Rules and reports never read profiler metric names directly: they read the normalized names below, so
that the NVIDIA and AMD evidence rules share one vocabulary and a metric that moved between Nsight
Compute versions is handled in one place. Each normalized metric lists the profiler metrics it may come
from, in order of preference; the one found is recorded as the metric's ``source``. A metric the report
does not hold is ``None`` with the reason, never 0.

Normalized names (unit in the name; ``_pct`` is percent, 0-100):

==================================  ==========================================================================
name                                meaning (Nsight Compute source metric)
==================================  ==========================================================================
duration_us                         kernel duration, us (gpu__time_duration.sum)
elapsed_cycles                      elapsed GPC cycles (gpc__cycles_elapsed.max)
sm_active_cycles                    average SM active cycles (sm__cycles_active.avg)
sm_frequency_ghz                    SM clock during the launch, GHz (gpc__cycles_elapsed.avg.per_second)
dram_frequency_ghz                  DRAM clock, GHz (dram__cycles_elapsed.avg.per_second)
sm_throughput_pct                   Compute (SM) throughput, % of peak (sm__throughput...elapsed)
memory_throughput_pct               Memory throughput, % of peak (gpu__compute_memory_throughput...elapsed)
dram_throughput_pct                 DRAM throughput, % of peak (gpu__dram_throughput / dram__throughput)
l1_throughput_pct                   L1/TEX cache throughput, % of peak (l1tex__throughput...active)
l2_throughput_pct                   L2 cache throughput, % of peak (lts__throughput...elapsed)
dram_gbps                           achieved DRAM bandwidth, GB/s = 1e9 bytes/s (dram__bytes.sum.per_second)
dram_read_bytes, dram_write_bytes   DRAM bytes read / written (dram__bytes_read.sum, dram__bytes_write.sum)
l1_hit_rate_pct, l2_hit_rate_pct    L1/TEX and L2 sector hit rates (l1tex__t_sector_hit_rate.pct, lts__...)
achieved_occupancy_pct              achieved occupancy (sm__warps_active.avg.pct_of_peak_sustained_active)
theoretical_occupancy_pct           theoretical occupancy (sm__maximum_warps_per_active_cycle_pct)
achieved_warps_per_sm               achieved active warps per SM (sm__warps_active.avg.per_cycle_active)
theoretical_warps_per_sm            theoretical active warps per SM (sm__maximum_warps_avg_per_active_cycle)
occupancy_limit_<x>_blocks          blocks per SM allowed by x = registers, shared_mem, warps, blocks
                                    (launch__occupancy_limit_<x>)
waves_per_sm                        waves per SM (launch__waves_per_multiprocessor)
grid_size_blocks, block_size_threads  launch configuration (launch__grid_size, launch__block_size)
sm_count                            SMs of the device (launch__sm_count / device__attribute_multiprocessor_count)
registers_per_thread                registers per thread (launch__registers_per_thread)
shared_mem_per_block_bytes          static + dynamic shared memory per block (launch__shared_mem_per_block...)
local_load_bytes, local_store_bytes local-memory (spill) traffic through L1, bytes (l1tex__t_bytes/sectors
                                    _pipe_lsu_mem_local_op_ld/st)
local_load_inst, local_store_inst   executed local load / store instructions (sass__inst_executed_local_*)
spill_requests                      executed register-spilling local memory instructions (derived__local
                                    _spilling_requests, ncu >= 2025.1)
warp_cycles_per_issued_inst         warp cycles per issued instruction (smsp__average_warp_latency_per_inst
                                    _issued.ratio)
stall_<reason>_cycles_per_inst      cycles per issued instruction a warp spends stalled for <reason>, by the
                                    profiler's reason names (smsp__average_warps_issue_stalled_<reason>
                                    _per_issue_active.ratio)
issue_active_pct                    share of cycles a scheduler issued an instruction ("One or More
                                    Eligible"; smsp__issue_active.avg.pct_of_peak_sustained_active)
active_warps_per_scheduler          smsp__warps_active.avg.per_cycle_active
eligible_warps_per_scheduler        smsp__warps_eligible.avg.per_cycle_active
tensor_pipe_pct                     busiest tensor pipe, % of peak active cycles (sm__pipe_tensor*_cycles_active)
fma_pipe_pct, fp64_pipe_pct, alu_pipe_pct  FMA / FP64 / ALU pipe, % of peak active cycles (sm__pipe_*_cycles
                                    _active.avg.pct_of_peak_sustained_active)
global_load_sectors, global_store_sectors  L1 sectors of global loads / stores (l1tex__t_sectors_pipe_lsu_mem
                                    _global_op_ld/st.sum)
global_load_sectors_per_request     L1 sectors per global load request (l1tex__t_sectors / l1tex__t_requests
global_store_sectors_per_request    _pipe_lsu_mem_global_op_ld/st.sum)
global_load_bytes_per_sector        bytes used per 32-byte sector of global loads / stores, 0-32 (smsp__sass
global_store_bytes_per_sector       _average_data_bytes_per_sector_mem_global_op_ld/st.ratio)
global_excessive_sectors_pct        L2 sectors of global accesses beyond the ideal, % of all (derived__memory
                                    _l2_theoretical_sectors_global_excessive / memory_l2_theoretical_sectors_global)
smem_load_bank_conflict_pct         shared-load bank conflicts, % of shared-load wavefronts (l1tex__data_bank
smem_store_bank_conflict_pct        _conflicts_pipe_lsu_mem_shared_op_ld/st / l1tex__data_pipe_lsu_wavefronts_...)
smem_bank_conflicts                 shared load + store bank conflicts, count
active_threads_per_warp             average active threads per executed instruction, 0-32
                                    (smsp__thread_inst_executed_per_inst_executed.ratio)
not_predicated_off_threads_per_warp same, not predicated off
                                    (smsp__thread_inst_executed_pred_on_per_inst_executed.ratio)
branch_uniform_pct                  branch efficiency (smsp__sass_average_branch_targets_threads_uniform.pct)
inst_executed                       executed warp instructions (smsp__inst_executed.sum)
atomic_inst                         executed global atomic + reduction instructions (per-opcode counts ATOM*/RED*,
                                    or smsp__sass_inst_executed_op_global_atom + _red)
fp64_inst                           executed FP64 instructions (per-opcode counts D*, e.g. DFMA, DADD, DMUL)
replay_passes                       replay passes the profiler needed (profiler__replayer_passes)
==================================  ==========================================================================

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kernelopt.evidence.model import Metric
from kernelopt.evidence.raw import RawKernel

#: Warp stall reasons by Nsight Compute's names, in the order of its Warp State section.
STALL_REASONS = (
    "barrier",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "imc_miss",
    "lg_throttle",
    "long_scoreboard",
    "math_pipe_throttle",
    "membar",
    "mio_throttle",
    "misc",
    "no_instruction",
    "not_selected",
    "selected",
    "short_scoreboard",
    "sleeping",
    "tex_throttle",
    "wait",
)
_STALL_RATIO = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
_PCSAMP = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+)$")


@dataclass(frozen=True)
class MetricSpec:
    """A normalized metric read directly from one profiler metric.

    Attributes:
        name: kernelopt's name (unit in the name).
        unit: unit of the normalized value.
        sources: the profiler metric names it may be read from, best first (the first present wins).
        scale: factor from the profiler metric's base unit to ``unit`` (e.g. ns -> us is 1e-3).
    """

    name: str
    unit: str
    sources: tuple[str, ...]
    scale: float = 1.0


_P = "%"
DIRECT: tuple[MetricSpec, ...] = (
    MetricSpec("duration_us", "us", ("gpu__time_duration.sum",), 1e-3),
    MetricSpec("elapsed_cycles", "cycle", ("gpc__cycles_elapsed.max", "sm__cycles_elapsed.max")),
    MetricSpec("sm_active_cycles", "cycle", ("sm__cycles_active.avg",)),
    MetricSpec(
        "sm_frequency_ghz", "GHz", ("gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second"), 1e-9
    ),
    MetricSpec("dram_frequency_ghz", "GHz", ("dram__cycles_elapsed.avg.per_second",), 1e-9),
    MetricSpec("sm_throughput_pct", _P, ("sm__throughput.avg.pct_of_peak_sustained_elapsed",)),
    MetricSpec("memory_throughput_pct", _P, ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",)),
    MetricSpec(
        "dram_throughput_pct",
        _P,
        (
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    MetricSpec("l1_throughput_pct", _P, ("l1tex__throughput.avg.pct_of_peak_sustained_active",)),
    MetricSpec("l2_throughput_pct", _P, ("lts__throughput.avg.pct_of_peak_sustained_elapsed",)),
    MetricSpec("dram_gbps", "GB/s", ("dram__bytes.sum.per_second",), 1e-9),
    MetricSpec("dram_read_bytes", "bytes", ("dram__bytes_read.sum",)),
    MetricSpec("dram_write_bytes", "bytes", ("dram__bytes_write.sum",)),
    MetricSpec("l1_hit_rate_pct", _P, ("l1tex__t_sector_hit_rate.pct",)),
    MetricSpec("l2_hit_rate_pct", _P, ("lts__t_sector_hit_rate.pct",)),
    MetricSpec("achieved_occupancy_pct", _P, ("sm__warps_active.avg.pct_of_peak_sustained_active",)),
    MetricSpec("theoretical_occupancy_pct", _P, ("sm__maximum_warps_per_active_cycle_pct",)),
    MetricSpec("achieved_warps_per_sm", "warps", ("sm__warps_active.avg.per_cycle_active",)),
    MetricSpec("theoretical_warps_per_sm", "warps", ("sm__maximum_warps_avg_per_active_cycle",)),
    MetricSpec("occupancy_limit_registers_blocks", "blocks", ("launch__occupancy_limit_registers",)),
    MetricSpec("occupancy_limit_shared_mem_blocks", "blocks", ("launch__occupancy_limit_shared_mem",)),
    MetricSpec("occupancy_limit_warps_blocks", "blocks", ("launch__occupancy_limit_warps",)),
    MetricSpec("occupancy_limit_blocks_blocks", "blocks", ("launch__occupancy_limit_blocks",)),
    MetricSpec("waves_per_sm", "waves", ("launch__waves_per_multiprocessor",)),
    MetricSpec("grid_size_blocks", "blocks", ("launch__grid_size",)),
    MetricSpec("block_size_threads", "threads", ("launch__block_size",)),
    MetricSpec("sm_count", "SMs", ("launch__sm_count", "device__attribute_multiprocessor_count")),
    MetricSpec("registers_per_thread", "registers", ("launch__registers_per_thread",)),
    MetricSpec(
        "local_load_inst", "inst", ("sass__inst_executed_local_loads", "smsp__sass_inst_executed_op_local_ld.sum")
    ),
    MetricSpec(
        "local_store_inst", "inst", ("sass__inst_executed_local_stores", "smsp__sass_inst_executed_op_local_st.sum")
    ),
    MetricSpec(
        "spill_requests",
        "inst",
        ("derived__local_spilling_requests", "sass__inst_executed_register_spilling"),
    ),
    MetricSpec("warp_cycles_per_issued_inst", "cycles", ("smsp__average_warp_latency_per_inst_issued.ratio",)),
    MetricSpec("issue_active_pct", _P, ("smsp__issue_active.avg.pct_of_peak_sustained_active",)),
    MetricSpec("active_warps_per_scheduler", "warps", ("smsp__warps_active.avg.per_cycle_active",)),
    MetricSpec("eligible_warps_per_scheduler", "warps", ("smsp__warps_eligible.avg.per_cycle_active",)),
    MetricSpec(
        "fma_pipe_pct",
        _P,
        (
            "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    MetricSpec(
        "fp64_pipe_pct",
        _P,
        (
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    MetricSpec(
        "alu_pipe_pct",
        _P,
        (
            "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    MetricSpec(
        "global_load_bytes_per_sector", "bytes", ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",)
    ),
    MetricSpec(
        "global_store_bytes_per_sector", "bytes", ("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",)
    ),
    MetricSpec("global_load_sectors", "sectors", ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",)),
    MetricSpec("global_store_sectors", "sectors", ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",)),
    MetricSpec("active_threads_per_warp", "threads", ("smsp__thread_inst_executed_per_inst_executed.ratio",)),
    MetricSpec(
        "not_predicated_off_threads_per_warp",
        "threads",
        ("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",),
    ),
    MetricSpec("branch_uniform_pct", _P, ("smsp__sass_average_branch_targets_threads_uniform.pct",)),
    MetricSpec("inst_executed", "inst", ("smsp__inst_executed.sum", "sm__inst_executed.sum")),
    MetricSpec("replay_passes", "passes", ("profiler__replayer_passes",)),
)

#: Tensor pipes (aggregate and per instruction family); the busiest one present is ``tensor_pipe_pct``.
TENSOR_PIPES = (
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
)
#: Used only when no ``...pct_of_peak_sustained_active`` tensor pipe metric is in the report (basic set).
TENSOR_PIPES_ELAPSED = ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",)

#: Per-opcode families counted as atomics / FP64 from ``sass__inst_executed_per_opcode_with_modifier_all``.
ATOMIC_OPCODES = ("ATOM", "ATOMG", "RED", "REDG", "ATOMS")  # ATOMS: shared-memory atomics
FP64_OPCODES = ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX", "DMMA")

#: Details-page rows (section title, row label) -> the metric the section file shows there (Nsight
#: Compute 2023-2025 section files; sections/*.section of the install).
DETAILS_LABELS: dict[tuple[str, str], str] = {
    ("GPU Speed Of Light Throughput", "DRAM Frequency"): "dram__cycles_elapsed.avg.per_second",
    ("GPU Speed Of Light Throughput", "SM Frequency"): "gpc__cycles_elapsed.avg.per_second",
    ("GPU Speed Of Light Throughput", "Elapsed Cycles"): "gpc__cycles_elapsed.max",
    ("GPU Speed Of Light Throughput", "Memory Throughput"): (
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
    ),
    ("GPU Speed Of Light Throughput", "DRAM Throughput"): "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    ("GPU Speed Of Light Throughput", "Duration"): "gpu__time_duration.sum",
    ("GPU Speed Of Light Throughput", "L1/TEX Cache Throughput"): "l1tex__throughput.avg.pct_of_peak_sustained_active",
    ("GPU Speed Of Light Throughput", "L2 Cache Throughput"): "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    ("GPU Speed Of Light Throughput", "SM Active Cycles"): "sm__cycles_active.avg",
    ("GPU Speed Of Light Throughput", "Compute (SM) Throughput"): "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    ("Memory Workload Analysis", "Memory Throughput"): "dram__bytes.sum.per_second",
    ("Memory Workload Analysis", "L1/TEX Hit Rate"): "l1tex__t_sector_hit_rate.pct",
    ("Memory Workload Analysis", "L2 Hit Rate"): "lts__t_sector_hit_rate.pct",
    ("Memory Workload Analysis", "Mem Busy"): "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed",
    ("Memory Workload Analysis", "Max Bandwidth"): (
        "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed"
    ),
    ("Memory Workload Analysis", "Mem Pipes Busy"): "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ("Memory Workload Analysis", "Local Memory Spilling Requests"): "derived__local_spilling_requests",
    ("Memory Workload Analysis", "Local Memory Spilling Request Overhead"): "derived__local_spilling_requests_pct",
    ("Compute Workload Analysis", "Executed Ipc Active"): "sm__inst_executed.avg.per_cycle_active",
    ("Compute Workload Analysis", "Executed Ipc Elapsed"): "sm__inst_executed.avg.per_cycle_elapsed",
    ("Compute Workload Analysis", "Issue Slots Busy"): "sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
    ("Compute Workload Analysis", "SM Busy"): "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed",
    ("Compute Workload Analysis", "Issued Ipc Active"): "sm__inst_issued.avg.per_cycle_active",
    ("Scheduler Statistics", "One or More Eligible"): "smsp__issue_active.avg.pct_of_peak_sustained_active",
    ("Scheduler Statistics", "Issued Warp Per Scheduler"): "smsp__issue_active.avg.per_cycle_active",
    ("Scheduler Statistics", "No Eligible"): "smsp__issue_inst0.avg.pct_of_peak_sustained_active",
    ("Scheduler Statistics", "Active Warps Per Scheduler"): "smsp__warps_active.avg.per_cycle_active",
    ("Scheduler Statistics", "Eligible Warps Per Scheduler"): "smsp__warps_eligible.avg.per_cycle_active",
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction"): "smsp__average_warp_latency_per_inst_issued.ratio",
    ("Warp State Statistics", "Warp Cycles Per Executed Instruction"): (
        "smsp__average_warps_active_per_inst_executed.ratio"
    ),
    ("Warp State Statistics", "Avg. Active Threads Per Warp"): "smsp__thread_inst_executed_per_inst_executed.ratio",
    ("Warp State Statistics", "Avg. Not Predicated Off Threads Per Warp"): (
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
    ),
    ("Instruction Statistics", "Executed Instructions"): "smsp__inst_executed.sum",
    ("Instruction Statistics", "Issued Instructions"): "smsp__inst_issued.sum",
    ("Instruction Statistics", "Avg. Executed Instructions Per Scheduler"): "smsp__inst_executed.avg",
    ("Instruction Statistics", "Avg. Issued Instructions Per Scheduler"): "smsp__inst_issued.avg",
    ("Launch Statistics", "Block Size"): "launch__block_size",
    ("Launch Statistics", "Grid Size"): "launch__grid_size",
    ("Launch Statistics", "Registers Per Thread"): "launch__registers_per_thread",
    ("Launch Statistics", "Shared Memory Configuration Size"): "launch__shared_mem_config_size",
    ("Launch Statistics", "Driver Shared Memory Per Block"): "launch__shared_mem_per_block_driver",
    ("Launch Statistics", "Dynamic Shared Memory Per Block"): "launch__shared_mem_per_block_dynamic",
    ("Launch Statistics", "Static Shared Memory Per Block"): "launch__shared_mem_per_block_static",
    ("Launch Statistics", "# SMs"): "launch__sm_count",
    ("Launch Statistics", "Threads"): "launch__thread_count",
    ("Launch Statistics", "Waves Per SM"): "launch__waves_per_multiprocessor",
    ("Occupancy", "Block Limit SM"): "launch__occupancy_limit_blocks",
    ("Occupancy", "Block Limit Registers"): "launch__occupancy_limit_registers",
    ("Occupancy", "Block Limit Shared Mem"): "launch__occupancy_limit_shared_mem",
    ("Occupancy", "Block Limit Warps"): "launch__occupancy_limit_warps",
    ("Occupancy", "Theoretical Active Warps per SM"): "sm__maximum_warps_avg_per_active_cycle",
    ("Occupancy", "Theoretical Occupancy"): "sm__maximum_warps_per_active_cycle_pct",
    ("Occupancy", "Achieved Occupancy"): "sm__warps_active.avg.pct_of_peak_sustained_active",
    ("Occupancy", "Achieved Active Warps Per SM"): "sm__warps_active.avg.per_cycle_active",
    ("Source Counters", "Branch Efficiency"): "smsp__sass_average_branch_targets_threads_uniform.pct",
    ("Source Counters", "Branch Instructions"): "smsp__inst_executed_op_branch.sum",
}

_NOT_IN_REPORT = "not in this report (section not collected, or not on this GPU / ncu version)"


def _missing(unit: str, sources: tuple[str, ...] | list[str], kernel: RawKernel) -> Metric:
    present_na = [c for c in sources if kernel.has(c)]
    reason = "the profiler reported n/a" if present_na else _NOT_IN_REPORT
    return Metric(value=None, unit=unit, source=" | ".join(sources), missing_reason=reason)


def _first(kernel: RawKernel, sources: tuple[str, ...]) -> tuple[str, float] | None:
    for c in sources:
        v = kernel.value(c)
        if v is not None:
            return c, v
    return None


def _ratio_pct(kernel: RawKernel, num: str, den: str, unit: str = "%") -> Metric:
    n, d = kernel.value(num), kernel.value(den)
    if n is None or d is None:
        return _missing(unit, (num, den), kernel)
    if d == 0:
        return Metric(value=None, unit=unit, source=f"{num} / {den}", missing_reason=f"{den} is 0 (no such accesses)")
    return Metric(value=100.0 * n / d, unit=unit, source=f"{num} / {den}")


def _per_request(kernel: RawKernel, op: str) -> Metric:
    sectors = f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"
    requests = f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"
    s, r = kernel.value(sectors), kernel.value(requests)
    if s is None or r is None:
        return _missing("sectors", (sectors, requests), kernel)
    if r == 0:
        return Metric(value=None, unit="sectors", source=f"{sectors} / {requests}", missing_reason="no such requests")
    return Metric(value=s / r, unit="sectors", source=f"{sectors} / {requests}")


def _local_bytes(kernel: RawKernel, op: str) -> Metric:
    direct = f"l1tex__t_bytes_pipe_lsu_mem_local_op_{op}.sum"
    sectors = f"l1tex__t_sectors_pipe_lsu_mem_local_op_{op}.sum"
    v = kernel.value(direct)
    if v is not None:
        return Metric(value=v, unit="bytes", source=direct)
    v = kernel.value(sectors)
    if v is not None:
        return Metric(value=32.0 * v, unit="bytes", source=f"32 x {sectors}")
    return _missing("bytes", (direct, sectors), kernel)


def _shared_mem(kernel: RawKernel) -> Metric:
    v = kernel.value("launch__shared_mem_per_block")
    if v is not None:
        return Metric(value=v, unit="bytes", source="launch__shared_mem_per_block")
    s, d = kernel.value("launch__shared_mem_per_block_static"), kernel.value("launch__shared_mem_per_block_dynamic")
    if s is not None and d is not None:
        return Metric(
            value=s + d,
            unit="bytes",
            source="launch__shared_mem_per_block_static + launch__shared_mem_per_block_dynamic",
        )
    return _missing("bytes", ("launch__shared_mem_per_block",), kernel)


def _tensor_pipe(kernel: RawKernel) -> Metric:
    found = [(c, kernel.value(c)) for c in TENSOR_PIPES if kernel.value(c) is not None]
    if not found:
        found = [(c, kernel.value(c)) for c in TENSOR_PIPES_ELAPSED if kernel.value(c) is not None]
    if not found:
        return _missing("%", TENSOR_PIPES[:3], kernel)
    name, value = max(found, key=lambda cv: cv[1] or 0.0)
    return Metric(value=value, unit="%", source=name)


def _opcode_count(kernel: RawKernel, families: tuple[str, ...], fallback: tuple[str, ...], unit: str) -> Metric:
    if kernel.per_opcode:
        total = sum(v for op, v in kernel.per_opcode.items() if op.split(".", 1)[0] in families)
        return Metric(value=total, unit=unit, source="sass__inst_executed_per_opcode_with_modifier_all")
    values = [kernel.value(f) for f in fallback]
    if fallback and all(v is not None for v in values):
        return Metric(value=sum(v for v in values if v is not None), unit=unit, source=" + ".join(fallback))
    return _missing(unit, fallback or ("sass__inst_executed_per_opcode_with_modifier_all",), kernel)


def _bank_conflicts(kernel: RawKernel) -> Metric:
    names = (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    )
    values = [kernel.value(n) for n in names]
    if any(v is None for v in values):
        return _missing("count", names, kernel)
    return Metric(value=sum(v for v in values if v is not None), unit="count", source=" + ".join(names))


def _excessive_sectors(kernel: RawKernel) -> Metric:
    return _ratio_pct(
        kernel, "derived__memory_l2_theoretical_sectors_global_excessive", "memory_l2_theoretical_sectors_global"
    )


DERIVED: tuple[tuple[str, Callable[[RawKernel], Metric]], ...] = (
    ("shared_mem_per_block_bytes", _shared_mem),
    ("local_load_bytes", lambda k: _local_bytes(k, "ld")),
    ("local_store_bytes", lambda k: _local_bytes(k, "st")),
    ("tensor_pipe_pct", _tensor_pipe),
    ("global_load_sectors_per_request", lambda k: _per_request(k, "ld")),
    ("global_store_sectors_per_request", lambda k: _per_request(k, "st")),
    ("global_excessive_sectors_pct", _excessive_sectors),
    (
        "smem_load_bank_conflict_pct",
        lambda k: _ratio_pct(
            k,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        ),
    ),
    (
        "smem_store_bank_conflict_pct",
        lambda k: _ratio_pct(
            k,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        ),
    ),
    ("smem_bank_conflicts", _bank_conflicts),
    (
        "atomic_inst",
        lambda k: _opcode_count(
            k,
            ATOMIC_OPCODES,
            ("smsp__sass_inst_executed_op_global_atom.sum", "smsp__sass_inst_executed_op_global_red.sum"),
            "inst",
        ),
    ),
    ("fp64_inst", lambda k: _opcode_count(k, FP64_OPCODES, (), "inst")),
)


def stall_reasons_present(kernel: RawKernel) -> list[str]:
    """Stall reasons the report has a per-issue ratio for (profiler names, e.g. ``long_scoreboard``)."""
    found = []
    for name in kernel.metrics:
        m = _STALL_RATIO.match(name)
        if m:
            found.append(m.group(1))
    order = {r: i for i, r in enumerate(STALL_REASONS)}
    return sorted(found, key=lambda r: (order.get(r, len(order)), r))


def normalize(kernel: RawKernel) -> dict[str, Metric]:
    """All normalized metrics of one launch (see the module docstring for names and units).

    Every name of the table is present in the result; one the report cannot supply has ``value=None``
    and a ``missing_reason``. Stall metrics (``stall_<reason>_cycles_per_inst``) are added for every
    reason the report has.
    """
    out: dict[str, Metric] = {}
    for spec in DIRECT:
        hit = _first(kernel, spec.sources)
        if hit is None:
            out[spec.name] = _missing(spec.unit, spec.sources, kernel)
        else:
            source, found = hit
            out[spec.name] = Metric(value=found * spec.scale, unit=spec.unit, source=source)
    for name, fn in DERIVED:
        out[name] = fn(kernel)
    for reason in stall_reasons_present(kernel):
        metric = f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"
        ratio = kernel.value(metric)
        out[f"stall_{reason}_cycles_per_inst"] = (
            Metric(value=ratio, unit="cycles", source=metric)
            if ratio is not None
            else _missing("cycles", (metric,), kernel)
        )
    return out


def stall_breakdown(kernel: RawKernel, metrics: dict[str, Metric]) -> tuple[dict[str, float], str | None]:
    """Share of warp cycles per stall reason, percent, and the metrics it was computed from.

    From the per-issue stall ratios divided by ``warp_cycles_per_issued_inst`` (Nsight Compute's CPIStall
    rule uses the same ratio) when the report has them; otherwise from PC-sampling totals (each reason's
    samples over all samples). Reasons with a zero share are left out.
    """
    cpi = metrics.get("warp_cycles_per_issued_inst")
    if cpi is not None and cpi.value:
        shares = {}
        for reason in stall_reasons_present(kernel):
            m = metrics.get(f"stall_{reason}_cycles_per_inst")
            if m is not None and m.value:
                shares[reason] = 100.0 * m.value / cpi.value
        if shares:
            return shares, "smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio / " + (
                "smsp__average_warp_latency_per_inst_issued.ratio"
            )
    total = kernel.value("smsp__pcsamp_sample_count")
    if total:
        shares = {}
        for name in kernel.metrics:
            pm = _PCSAMP.match(name)
            if not pm or pm.group(1).endswith("_not_issued"):
                continue
            reason = "no_instruction" if pm.group(1) == "no_instructions" else pm.group(1)
            v = kernel.value(name)
            if v:
                shares[reason] = 100.0 * v / total
        if shares:
            return shares, "smsp__pcsamp_warps_issue_stalled_<reason> / smsp__pcsamp_sample_count"
    return {}, None


def occupancy_limiters(metrics: dict[str, Metric]) -> list[str]:
    """The occupancy limiter(s): the ``launch__occupancy_limit_*`` with the fewest blocks per SM.

    Nsight Compute's TheoreticalOccupancy rule names the limiter the same way (lowest block limit, ties
    all reported). Empty when the limits are not in the report.
    """
    limits = {}
    for what in ("registers", "shared_mem", "warps", "blocks"):
        m = metrics.get(f"occupancy_limit_{what}_blocks")
        if m is not None and m.value is not None:
            limits[what] = m.value
    if not limits:
        return []
    low = min(limits.values())
    return [w for w, v in limits.items() if v == low]
