"""Symptom ids: the words that connect evidence rules to wiki technique records.

A rule's :attr:`~kernelopt.evidence.model.Finding.symptom` is one of these ids; wiki records list the
ids they answer. New ids are added here (and only here) so that ``kernelopt wiki lint`` can check them.
"""

from __future__ import annotations

from enum import StrEnum

from kernelopt.actions import ActionCategory


class Symptom(StrEnum):
    """Symptom ids shared by the NVIDIA and AMD evidence rules and the wiki."""

    SMALL_GRID = "small_grid"
    TAIL_EFFECT = "tail_effect"
    UNCOALESCED_GLOBAL = "uncoalesced_global"
    SPARSE_STORES = "sparse_stores"
    LATENCY_BOUND = "latency_bound"
    DRAM_BANDWIDTH_BOUND = "dram_bandwidth_bound"
    MEMORY_BOUND_NEAR_ROOF = "memory_bound_near_roof"
    COMPUTE_BOUND_NO_TENSOR = "compute_bound_no_tensor"
    COMPUTE_BOUND = "compute_bound"
    REGISTER_SPILLS = "register_spills"
    OCCUPANCY_LIMITED_REGISTERS = "occupancy_limited_registers"
    OCCUPANCY_LIMITED_SHARED_MEMORY = "occupancy_limited_shared_memory"
    OCCUPANCY_LIMITED_BLOCKS = "occupancy_limited_blocks"
    ACHIEVED_OCCUPANCY_GAP = "achieved_occupancy_gap"
    SMEM_BANK_CONFLICTS = "smem_bank_conflicts"
    BARRIER_STALLS = "barrier_stalls"
    THREAD_DIVERGENCE = "thread_divergence"
    ATOMICS = "atomics"
    FP64_USE = "fp64_use"
    LOW_ISSUE_EFFICIENCY = "low_issue_efficiency"
    MIO_THROTTLE = "mio_throttle"
    LOW_L2_HIT_RATE = "low_l2_hit_rate"
    NARROW_GLOBAL_LOADS = "narrow_global_loads"
    LAUNCH_OVERHEAD = "launch_overhead"
    LDS_BANK_CONFLICTS = "lds_bank_conflicts"
    SCRATCH_SPILLS = "scratch_spills"
    OCCUPANCY_LIMITED_VGPRS = "occupancy_limited_vgprs"
    OCCUPANCY_LIMITED_LDS = "occupancy_limited_lds"
    MFMA_UNDERUSE = "mfma_underuse"
    WAITCNT_STALLS = "waitcnt_stalls"
    TIMING_ONLY = "timing_only"
    OCCUPANCY_LIMITED_WARPS = "occupancy_limited_warps"
    LATENCY_BOUND_SHORT_SCOREBOARD = "latency_bound_short_scoreboard"
    BLOCK_SIZE_NOT_WARP_MULTIPLE = "block_size_not_warp_multiple"
    ONCHIP_BANDWIDTH_BOUND = "onchip_bandwidth_bound"


TIMING_ONLY_ACTIONS = (
    ActionCategory.BLOCK_SIZE,
    ActionCategory.NUM_WARPS,
    ActionCategory.SOFTWARE_PIPELINING,
    ActionCategory.TILING,
)
"""What a planner can still try without counters: measured knob moves, one at a time (the classic
empirical autotuning of block size, warps and pipeline depth). Each move is kept only when Stage 4's
interleaved timing shows a significant gain, so timing alone is enough evidence to accept or revert it."""
