"""NVIDIA evidence rules: Nsight Compute metrics -> findings (``evidence -> inference -> action``).

Every rule reads normalized metrics (:mod:`kernelopt.evidence.nvidia_metrics`) and compares them with a
cited threshold (:mod:`kernelopt.evidence.thresholds`, taken from Nsight Compute's own rule files).
:data:`NVIDIA_RULES` lists them in priority order: the bottleneck-level rules first (grid, roof,
latency), then resource limits, then access-pattern and instruction-level rules.

Rule ids and the symptom each emits:

================================  =====================================
rule id                           symptom
================================  =====================================
nv.small_grid                     small_grid
nv.tail_effect                    tail_effect
nv.memory_bound_near_roof         memory_bound_near_roof
nv.dram_bandwidth_bound           dram_bandwidth_bound
nv.compute_bound_no_tensor        compute_bound_no_tensor
nv.compute_bound                  compute_bound
nv.latency_bound                  latency_bound (long-scoreboard stalls)
nv.short_scoreboard               latency_bound_short_scoreboard
nv.mio_throttle                   mio_throttle
nv.barrier_stalls                 barrier_stalls
nv.lg_throttle                    narrow_global_loads
nv.low_issue_efficiency           low_issue_efficiency
nv.register_spills                register_spills
nv.occupancy_limited_registers    occupancy_limited_registers
nv.occupancy_limited_shared_mem   occupancy_limited_shared_memory
nv.occupancy_limited_warps        occupancy_limited_warps
nv.occupancy_limited_blocks       occupancy_limited_blocks
nv.achieved_occupancy_gap         achieved_occupancy_gap
nv.uncoalesced_global             uncoalesced_global
nv.sparse_stores                  sparse_stores
nv.smem_bank_conflicts            smem_bank_conflicts
nv.thread_divergence              thread_divergence
nv.block_size_not_warp_multiple   block_size_not_warp_multiple
nv.atomics                        atomics
nv.fp64_use                       fp64_use
nv.narrow_global_loads            narrow_global_loads
nv.onchip_bandwidth_bound         onchip_bandwidth_bound
================================  =====================================

Pure: no I/O.
"""

from __future__ import annotations

import math

from kernelopt.actions import ActionCategory as A
from kernelopt.evidence.model import Confidence, Finding, KernelEvidence
from kernelopt.evidence.rules import Rule, fact, item, stall_share, top_stall, value
from kernelopt.evidence.sass import parse_instruction
from kernelopt.evidence.symptoms import Symptom as S
from kernelopt.evidence.thresholds import (
    ACTIVE_THREADS_MIN,
    BANK_CONFLICT_PCT,
    GRID_BELOW_SMS,
    HOTSPOT_SHARE_PCT,
    IDEAL_SECTORS_PER_REQUEST,
    ISSUE_ACTIVE_LOW_PCT,
    ISSUE_ACTIVE_STALL_PCT,
    OCCUPANCY_GAP_POINTS,
    PIPE_HIGH_PCT,
    PIPE_LOW_PCT,
    SECTOR_BYTES_MAX,
    SECTOR_WASTE_MIN_PCT,
    SMALL_GRID_WAVES,
    SOL_BALANCE_POINTS,
    SOL_HIGH_PCT,
    SOL_LATENCY_PCT,
    SPILL_ANY,
    STALL_SHARE_PCT,
    TAIL_EFFECT_OCCUPANCY_RATIO,
    TAIL_EFFECT_SHARE,
    THEORETICAL_OCCUPANCY_LOW_PCT,
    TRAFFIC_SHARE_MIN_PCT,
    VECTOR_LOAD_BITS,
    WARP_SIZE,
)


def _family(text: str | None) -> str | None:
    """The opcode family of a SASS text (``@P0 LDL.64 R2, [R1]`` -> ``LDL``)."""
    ins = parse_instruction(text) if text else None
    return ins.family if ins is not None else None


def _sol(k: KernelEvidence) -> tuple[float | None, float | None]:
    return value(k, "sm_throughput_pct"), value(k, "memory_throughput_pct")


def _latency_regime(k: KernelEvidence) -> bool:
    """Both SOL throughputs below 60% (SOLBottleneck's latency regime); False when unknown."""
    sm, mem = _sol(k)
    return sm is not None and mem is not None and max(sm, mem) < SOL_LATENCY_PCT.value


def _stall_items(k: KernelEvidence, reason: str) -> list:
    share = stall_share(k, reason)
    return [
        fact(
            f"stall_{reason}",
            share,
            unit="% of warp cycles",
            source=f"{k.artifact or 'profile'} (stall_breakdown_pct)",
            threshold=STALL_SHARE_PCT,
            op=">",
        ),
        item(k, f"stall_{reason}_cycles_per_inst"),
        item(k, "issue_active_pct", threshold=ISSUE_ACTIVE_STALL_PCT, op="<"),
    ]


def _hotspot_for(k: KernelEvidence, reason: str) -> str | None:
    for h in k.hotspots:
        if h.dominant_stall == reason and (h.share_pct or 0.0) > HOTSPOT_SHARE_PCT.value:
            return h.location
    return None


def _stall_rule(k: KernelEvidence, reason: str) -> bool:
    share = stall_share(k, reason)
    issue = value(k, "issue_active_pct")
    return (
        share is not None and share > STALL_SHARE_PCT.value and (issue is None or issue < ISSUE_ACTIVE_STALL_PCT.value)
    )


# -- grid and waves -------------------------------------------------------------------------------


def small_grid(k: KernelEvidence) -> Finding | None:
    waves = value(k, "waves_per_sm")
    grid = value(k, "grid_size_blocks")
    sms = value(k, "sm_count")
    below_sms = grid is not None and sms is not None and sms > 0 and grid < sms
    few_waves = waves is not None and waves < SMALL_GRID_WAVES.value and _latency_regime(k)
    if not (below_sms or few_waves):
        return None
    evidence = [item(k, "waves_per_sm", threshold=SMALL_GRID_WAVES, op="<")]
    if grid is not None and sms is not None:
        evidence += [
            item(k, "grid_size_blocks", threshold=GRID_BELOW_SMS, op="< sm_count x"),
            item(k, "sm_count"),
        ]
    evidence += [item(k, "sm_throughput_pct"), item(k, "memory_throughput_pct")]
    speedup = 100.0 * (sms - grid) / sms if below_sms and grid is not None and sms else None
    return Finding(
        rule_id="nv.small_grid",
        symptom=S.SMALL_GRID.value,
        confidence=Confidence.HIGH,
        evidence=evidence,
        inference="the grid has too few blocks to keep every SM busy for even one wave, so most of the GPU idles",
        action_categories=[A.BLOCK_SIZE, A.SPLIT_K, A.TILING],
        estimated_speedup_pct=speedup,
    )


def tail_effect(k: KernelEvidence) -> Finding | None:
    waves = value(k, "waves_per_sm")
    ach = value(k, "achieved_occupancy_pct")
    theo = value(k, "theoretical_occupancy_pct")
    if waves is None or ach is None or not theo:
        return None
    partial, whole = math.modf(waves)
    if whole < 1 or partial == 0:
        return None
    tail_pct = 100.0 / (whole + 1.0)
    if tail_pct < TAIL_EFFECT_SHARE.value or ach >= theo * TAIL_EFFECT_OCCUPANCY_RATIO:
        return None
    return Finding(
        rule_id="nv.tail_effect",
        symptom=S.TAIL_EFFECT.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            item(k, "waves_per_sm"),
            fact(
                "partial_wave_share",
                tail_pct,
                unit="% of run time (upper bound)",
                source=f"{k.artifact or 'profile'} (1 / (full waves + 1))",
                threshold=TAIL_EFFECT_SHARE,
                op=">=",
            ),
            item(k, "achieved_occupancy_pct"),
            item(k, "theoretical_occupancy_pct"),
        ],
        inference=(
            f"{int(whole)} full wave(s) plus a partial wave: the last wave runs with most SMs idle and may take up to "
            f"{tail_pct:.0f}% of the run time"
        ),
        action_categories=[A.BLOCK_SIZE, A.PERSISTENT_KERNEL, A.AUTOTUNE],
        estimated_speedup_pct=tail_pct,
    )


# -- throughput regime ----------------------------------------------------------------------------


def memory_bound_near_roof(k: KernelEvidence) -> Finding | None:
    dram = value(k, "dram_throughput_pct")
    if dram is None or dram < SOL_HIGH_PCT.value:
        return None
    return Finding(
        rule_id="nv.memory_bound_near_roof",
        symptom=S.MEMORY_BOUND_NEAR_ROOF.value,
        confidence=Confidence.HIGH,
        evidence=[
            item(k, "dram_throughput_pct", threshold=SOL_HIGH_PCT, op=">="),
            item(k, "dram_gbps"),
            item(k, "dram_read_bytes"),
            item(k, "dram_write_bytes"),
            item(k, "sm_throughput_pct"),
        ],
        inference=(
            "DRAM is near its peak bandwidth: the kernel can only get faster by moving fewer bytes "
            "(fusion, lower precision, reuse through cache) — or the loop should stop here"
        ),
        action_categories=[A.REDUCE_BYTES, A.FUSION, A.PRECISION],
    )


def dram_bandwidth_bound(k: KernelEvidence) -> Finding | None:
    dram = value(k, "dram_throughput_pct")
    sm, mem = _sol(k)
    if dram is None or mem is None or sm is None:
        return None
    if not (SOL_LATENCY_PCT.value <= dram < SOL_HIGH_PCT.value) or mem - sm < SOL_BALANCE_POINTS.value:
        return None
    return Finding(
        rule_id="nv.dram_bandwidth_bound",
        symptom=S.DRAM_BANDWIDTH_BOUND.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            item(k, "dram_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
            item(k, "memory_throughput_pct"),
            item(k, "sm_throughput_pct", threshold=SOL_BALANCE_POINTS, op="<= memory -"),
            item(k, "dram_gbps"),
        ],
        inference=(
            "memory traffic dominates and DRAM runs at 60-80% of peak: the access stream is not yet efficient "
            "enough to reach the roof (narrow or strided accesses, too few bytes in flight)"
        ),
        action_categories=[A.VECTORIZED_ACCESS, A.TMA_ASYNC_COPY, A.REDUCE_BYTES, A.FUSION],
    )


def onchip_bandwidth_bound(k: KernelEvidence) -> Finding | None:
    """The busiest memory unit is on chip (L1/shared or L2) while DRAM idles: too little data reuse.

    Nsight Compute's memory throughput is the maximum over the memory units (Profiling Guide, "Speed Of
    Light": ``gpu__compute_memory_throughput`` is the max of DRAM, L2 and L1/TEX throughputs). When it is
    high (>= 60 %, SOLBottleneck) but DRAM is at most half of it, the traffic that limits the kernel is
    re-read from the caches: each program loads operands that its neighbours load too. Larger tiles or
    blocks raise the work done per byte loaded (CUTLASS, "Efficient GEMM in CUDA": operand traffic per
    output scales with 1/BLOCK_M + 1/BLOCK_N); tile order (L2 rasterization) helps when L2 is the unit.
    """
    mem = value(k, "memory_throughput_pct")
    dram = value(k, "dram_throughput_pct")
    if mem is None or dram is None or mem < SOL_LATENCY_PCT.value or dram > mem / 2:
        return None
    units = {u: value(k, f"{u}_throughput_pct") for u in ("l1", "l2")}
    busiest = max((u for u in units if units[u] is not None), key=lambda u: units[u] or 0.0, default=None)
    categories = [A.TILING, A.BLOCK_SIZE, A.L2_RASTERIZATION]
    if busiest == "l2":
        categories = [A.TILING, A.L2_RASTERIZATION, A.BLOCK_SIZE]
    where = {"l1": "L1/shared memory", "l2": "L2"}.get(busiest or "", "an on-chip memory unit")
    return Finding(
        rule_id="nv.onchip_bandwidth_bound",
        symptom=S.ONCHIP_BANDWIDTH_BOUND.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            item(k, "memory_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
            item(k, "dram_throughput_pct"),
            item(k, "l1_throughput_pct"),
            item(k, "l2_throughput_pct"),
        ],
        inference=(
            f"the memory traffic that limits the kernel is served by {where} while DRAM runs at most half as busy: "
            "operands are re-read from the caches, so each program does too little work per byte it loads"
        ),
        action_categories=categories,
    )


def _compute_heavy(k: KernelEvidence) -> bool:
    sm, mem = _sol(k)
    if sm is None or mem is None:
        return False
    return sm >= SOL_HIGH_PCT.value or (sm >= SOL_LATENCY_PCT.value and sm - mem >= SOL_BALANCE_POINTS.value)


def compute_bound_no_tensor(k: KernelEvidence) -> Finding | None:
    if not _compute_heavy(k):
        return None
    tensor = value(k, "tensor_pipe_pct")
    fma = value(k, "fma_pipe_pct")
    if tensor is None or tensor >= PIPE_LOW_PCT.value or fma is None or fma < PIPE_HIGH_PCT.value:
        return None
    return Finding(
        rule_id="nv.compute_bound_no_tensor",
        symptom=S.COMPUTE_BOUND_NO_TENSOR.value,
        confidence=Confidence.HIGH,
        evidence=[
            item(k, "sm_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
            item(k, "fma_pipe_pct", threshold=PIPE_HIGH_PCT, op=">="),
            item(k, "tensor_pipe_pct", threshold=PIPE_LOW_PCT, op="<"),
        ],
        inference="the FP32 FMA pipe is saturated while the tensor cores are idle",
        action_categories=[A.TENSOR_CORE_USE, A.PRECISION],
    )


_PIPES = (
    ("tensor_pipe_pct", "tensor"),
    ("fma_pipe_pct", "FP32 FMA"),
    ("fp64_pipe_pct", "FP64"),
    ("alu_pipe_pct", "integer ALU"),
)


def compute_bound(k: KernelEvidence) -> Finding | None:
    if not _compute_heavy(k):
        return None
    tensor = value(k, "tensor_pipe_pct")
    fma = value(k, "fma_pipe_pct")
    if tensor is not None and tensor < PIPE_LOW_PCT.value and fma is not None and fma >= PIPE_HIGH_PCT.value:
        return None  # compute_bound_no_tensor reports it
    pipes = [(name, label, value(k, name)) for name, label in _PIPES]
    measured = [(name, label, v) for name, label, v in pipes if v is not None]
    busiest = max(measured, key=lambda p: p[2]) if measured else None
    evidence = [item(k, "sm_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="), item(k, "memory_throughput_pct")]
    evidence += [item(k, name) for name, _, _ in pipes]
    if busiest is not None and busiest[0] == "tensor_pipe_pct" and busiest[2] >= PIPE_LOW_PCT.value:
        inference = (
            f"compute throughput dominates and the tensor pipe is the busiest ({busiest[2]:.0f}%): gains come from "
            "keeping the tensor cores fed (bigger tiles, deeper pipelining, warp specialization) or a lower precision"
        )
        actions = [A.TILING, A.WARP_SPECIALIZATION, A.SOFTWARE_PIPELINING, A.PRECISION]
        confidence = Confidence.HIGH
    elif busiest is not None and busiest[0] == "fp64_pipe_pct" and busiest[2] >= PIPE_HIGH_PCT.value:
        inference = f"compute throughput dominates and the FP64 pipe is the busiest ({busiest[2]:.0f}%)"
        actions = [A.PRECISION, A.TENSOR_CORE_USE]
        confidence = Confidence.HIGH
    else:
        shown = f"the busiest pipe is {busiest[1]} at {busiest[2]:.0f}%" if busiest else "no pipe metric was collected"
        inference = (
            f"compute throughput dominates without a saturated FMA or tensor pipe ({shown}): the instruction mix "
            "(integer/address math, special functions, conversions) is the cost"
        )
        actions = [A.INSTRUCTION_MIX, A.TENSOR_CORE_USE]
        confidence = Confidence.MEDIUM
    return Finding(
        rule_id="nv.compute_bound",
        symptom=S.COMPUTE_BOUND.value,
        confidence=confidence,
        evidence=evidence,
        inference=inference,
        action_categories=actions,
    )


# -- stalls ---------------------------------------------------------------------------------------


def latency_bound(k: KernelEvidence) -> Finding | None:
    if not _latency_regime(k) or not _stall_rule(k, "long_scoreboard"):
        return None
    waves = value(k, "waves_per_sm")
    confident = waves is None or waves >= SMALL_GRID_WAVES.value
    return Finding(
        rule_id="nv.latency_bound",
        symptom=S.LATENCY_BOUND.value,
        confidence=Confidence.HIGH if confident else Confidence.MEDIUM,
        evidence=[
            item(k, "sm_throughput_pct", threshold=SOL_LATENCY_PCT, op="<"),
            item(k, "memory_throughput_pct", threshold=SOL_LATENCY_PCT, op="<"),
            *_stall_items(k, "long_scoreboard"),
            item(k, "achieved_occupancy_pct"),
        ],
        inference=(
            "warps mostly wait on global/local memory results (long scoreboard) while neither compute nor "
            "memory bandwidth is busy: too few loads in flight to hide DRAM latency"
        ),
        action_categories=([A.VECTORIZED_ACCESS] if _narrow_loads(k) else [])
        + [A.SOFTWARE_PIPELINING, A.TMA_ASYNC_COPY, A.OCCUPANCY, A.NUM_WARPS],
        location=_hotspot_for(k, "long_scoreboard"),
    )


def short_scoreboard(k: KernelEvidence) -> Finding | None:
    if not _stall_rule(k, "short_scoreboard"):
        return None
    return Finding(
        rule_id="nv.short_scoreboard",
        symptom=S.LATENCY_BOUND_SHORT_SCOREBOARD.value,
        confidence=Confidence.MEDIUM,
        evidence=[*_stall_items(k, "short_scoreboard"), item(k, "smem_bank_conflicts")],
        inference=(
            "warps wait on shared-memory or special-function (MUFU) results (short scoreboard): shared-memory "
            "latency, often made worse by bank conflicts"
        ),
        action_categories=[A.SMEM_SWIZZLE_PADDING, A.INSTRUCTION_MIX, A.SOFTWARE_PIPELINING],
        location=_hotspot_for(k, "short_scoreboard"),
    )


def mio_throttle(k: KernelEvidence) -> Finding | None:
    if not _stall_rule(k, "mio_throttle"):
        return None
    return Finding(
        rule_id="nv.mio_throttle",
        symptom=S.MIO_THROTTLE.value,
        confidence=Confidence.MEDIUM,
        evidence=[*_stall_items(k, "mio_throttle"), item(k, "smem_bank_conflicts")],
        inference=(
            "the MIO queue (shared memory, special math, dynamic branches) is full: too many narrow shared-memory "
            "instructions or bank-conflict replays"
        ),
        action_categories=[A.VECTORIZED_ACCESS, A.SMEM_SWIZZLE_PADDING, A.INSTRUCTION_MIX],
        location=_hotspot_for(k, "mio_throttle"),
    )


def barrier_stalls(k: KernelEvidence) -> Finding | None:
    if not _stall_rule(k, "barrier"):
        return None
    return Finding(
        rule_id="nv.barrier_stalls",
        symptom=S.BARRIER_STALLS.value,
        confidence=Confidence.MEDIUM,
        evidence=[*_stall_items(k, "barrier"), item(k, "block_size_threads")],
        inference="warps wait at block barriers for sibling warps: uneven work before __syncthreads or large blocks",
        action_categories=[A.BLOCK_SIZE, A.WARP_SPECIALIZATION, A.SOFTWARE_PIPELINING],
        location=_hotspot_for(k, "barrier"),
    )


def lg_throttle(k: KernelEvidence) -> Finding | None:
    if not _stall_rule(k, "lg_throttle"):
        return None
    return Finding(
        rule_id="nv.lg_throttle",
        symptom=S.NARROW_GLOBAL_LOADS.value,
        confidence=Confidence.MEDIUM,
        evidence=[*_stall_items(k, "lg_throttle"), item(k, "local_load_inst"), item(k, "local_store_inst")],
        inference=(
            "the local/global memory instruction queue is full: many narrow global or local (spill) accesses "
            "that could be fewer, wider ones"
        ),
        action_categories=[A.VECTORIZED_ACCESS, A.REGISTER_PRESSURE],
        location=_hotspot_for(k, "lg_throttle"),
    )


def low_issue_efficiency(k: KernelEvidence) -> Finding | None:
    issue = value(k, "issue_active_pct")
    if issue is None or issue >= ISSUE_ACTIVE_LOW_PCT.value or not _latency_regime(k) or not k.stall_breakdown_pct:
        return None  # without a stall breakdown (e.g. --fast) "no single reason dominates" cannot be claimed
    top = top_stall(k)
    if top is not None and top[1] > STALL_SHARE_PCT.value:
        return None  # a specific stall rule explains it
    evidence = [
        item(k, "issue_active_pct", threshold=ISSUE_ACTIVE_LOW_PCT, op="<"),
        item(k, "eligible_warps_per_scheduler"),
        item(k, "active_warps_per_scheduler"),
        item(k, "warp_cycles_per_issued_inst"),
    ]
    if top is not None:
        evidence.append(
            fact(
                f"stall_{top[0]}",
                top[1],
                unit="% of warp cycles",
                source=f"{k.artifact or 'profile'} (stall_breakdown_pct, largest)",
            )
        )
    return Finding(
        rule_id="nv.low_issue_efficiency",
        symptom=S.LOW_ISSUE_EFFICIENCY.value,
        confidence=Confidence.LOW,
        evidence=evidence,
        inference="schedulers often have no eligible warp, and no single stall reason dominates",
        action_categories=[A.OCCUPANCY, A.NUM_WARPS, A.SOFTWARE_PIPELINING],
    )


# -- resources ------------------------------------------------------------------------------------


def register_spills(k: KernelEvidence) -> Finding | None:
    dyn = [
        value(k, n)
        for n in ("spill_requests", "local_load_inst", "local_store_inst", "local_load_bytes", "local_store_bytes")
    ]
    dynamic = sum(v for v in dyn if v) > 0
    static_ops = k.isa.spill_ops if k.isa is not None else None
    compiler_spills = k.isa.spilled_registers if k.isa is not None else None
    if not dynamic and not static_ops and not compiler_spills:
        return None
    evidence = [
        item(k, "spill_requests", threshold=SPILL_ANY, op=">"),
        item(k, "local_load_inst"),
        item(k, "local_store_inst"),
        item(k, "local_load_bytes"),
        item(k, "local_store_bytes"),
        item(k, "registers_per_thread"),
    ]
    if k.isa is not None and k.isa.spilled_registers is not None:
        evidence.append(
            fact(
                "compiler.spilled_registers",
                k.isa.spilled_registers,
                unit="registers",
                source=k.isa.source or "compiler",
                threshold=SPILL_ANY,
                op=">",
            )
        )
    if k.isa is not None:
        evidence.append(
            fact(
                "sass.LDL+STL",
                static_ops,
                unit="instructions",
                source=k.isa.source or "SASS",
                threshold=SPILL_ANY,
                op=">",
            )
        )
    location = next((h.location for h in k.hotspots if _family(h.text) in ("LDL", "STL")), None)
    return Finding(
        rule_id="nv.register_spills",
        symptom=S.REGISTER_SPILLS.value,
        confidence=Confidence.HIGH if dynamic else Confidence.MEDIUM,
        evidence=evidence,
        inference=(
            "registers spill to local memory: every spilled value costs a round trip through L1/L2 instead of a "
            "register read"
        ),
        action_categories=[A.REGISTER_PRESSURE, A.BLOCK_SIZE, A.NUM_WARPS],
        location=location,
    )


_LIMITER_RULES = {
    "registers": (
        "nv.occupancy_limited_registers",
        S.OCCUPANCY_LIMITED_REGISTERS,
        "occupancy_limit_registers_blocks",
        "registers_per_thread",
        [A.REGISTER_PRESSURE, A.NUM_WARPS, A.BLOCK_SIZE],
        "register use per thread",
    ),
    "shared_mem": (
        "nv.occupancy_limited_shared_mem",
        S.OCCUPANCY_LIMITED_SHARED_MEMORY,
        "occupancy_limit_shared_mem_blocks",
        "shared_mem_per_block_bytes",
        [A.TILING, A.SOFTWARE_PIPELINING, A.BLOCK_SIZE],
        "shared memory per block",
    ),
    "warps": (
        "nv.occupancy_limited_warps",
        S.OCCUPANCY_LIMITED_WARPS,
        "occupancy_limit_warps_blocks",
        "block_size_threads",
        [A.BLOCK_SIZE, A.NUM_WARPS],
        "the number of warps per block",
    ),
    "blocks": (
        "nv.occupancy_limited_blocks",
        S.OCCUPANCY_LIMITED_BLOCKS,
        "occupancy_limit_blocks_blocks",
        "block_size_threads",
        [A.BLOCK_SIZE, A.NUM_WARPS],
        "the maximum number of blocks per SM (blocks are too small)",
    ),
}


def _occupancy_limited(limiter: str):
    rule_id, symptom, limit_metric, resource_metric, actions, what = _LIMITER_RULES[limiter]

    def check(k: KernelEvidence) -> Finding | None:
        theo = value(k, "theoretical_occupancy_pct")
        if theo is None or theo >= THEORETICAL_OCCUPANCY_LOW_PCT.value or limiter not in k.occupancy_limiters:
            return None
        return Finding(
            rule_id=rule_id,
            symptom=symptom.value,
            confidence=Confidence.MEDIUM if _latency_regime(k) else Confidence.LOW,
            evidence=[
                item(k, "theoretical_occupancy_pct", threshold=THEORETICAL_OCCUPANCY_LOW_PCT, op="<"),
                item(k, limit_metric),
                item(k, resource_metric),
                item(k, "achieved_occupancy_pct"),
            ],
            inference=(f"theoretical occupancy is limited by {what}: fewer warps per SM are available to hide latency"),
            action_categories=list(actions),
        )

    return check


def achieved_occupancy_gap(k: KernelEvidence) -> Finding | None:
    theo = value(k, "theoretical_occupancy_pct")
    ach = value(k, "achieved_occupancy_pct")
    if theo is None or ach is None or theo - ach <= OCCUPANCY_GAP_POINTS.value:
        return None
    return Finding(
        rule_id="nv.achieved_occupancy_gap",
        symptom=S.ACHIEVED_OCCUPANCY_GAP.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            item(k, "theoretical_occupancy_pct"),
            item(k, "achieved_occupancy_pct", threshold=OCCUPANCY_GAP_POINTS, op="< theoretical -"),
            item(k, "waves_per_sm"),
        ],
        inference=(
            "achieved occupancy is far below what the launch allows: load imbalance between warps/blocks, "
            "a partial last wave, or scheduling overhead"
        ),
        action_categories=[A.BLOCK_SIZE, A.PERSISTENT_KERNEL, A.AUTOTUNE],
        estimated_speedup_pct=100.0 * (theo - ach) / theo if theo else None,
    )


# -- memory access patterns -----------------------------------------------------------------------


def _marker_location(k: KernelEvidence, *rule_ids: str) -> str | None:
    for m in k.source_markers:
        if m.rule_id in rule_ids and m.kind == "source":
            return m.location
    for m in k.source_markers:
        if m.rule_id in rule_ids:
            return m.location
    return None


def _waste_pct(bytes_per_sector: float | None) -> float | None:
    if bytes_per_sector is None or bytes_per_sector <= 0:
        return None
    return 100.0 * (1.0 - bytes_per_sector / SECTOR_BYTES_MAX.value)


def _traffic_share(k: KernelEvidence, which: str) -> float | None:
    """Share (percent) of global L1 sectors that are loads (``which="load"``) or stores; ``None`` if unknown."""
    ld, st = value(k, "global_load_sectors"), value(k, "global_store_sectors")
    if ld is None or st is None or ld + st <= 0:
        return None
    return 100.0 * (ld if which == "load" else st) / (ld + st)


def _material(k: KernelEvidence, which: str) -> bool:
    share = _traffic_share(k, which)
    return share is None or share >= TRAFFIC_SHARE_MIN_PCT.value


def _ideal_sectors_waste(k: KernelEvidence) -> tuple[float, float] | None:
    """(ideal sectors per request, waste %) from measured load sectors/request and the widest SASS load."""
    measured = value(k, "global_load_sectors_per_request")
    if measured is None or k.isa is None or k.isa.global_load_bits is None or measured <= 0:
        return None
    ideal = k.isa.global_load_bits / 8.0  # 32 threads x (bits / 8) bytes / 32-byte sectors
    if measured <= ideal * IDEAL_SECTORS_PER_REQUEST.value:
        return ideal, 0.0
    return ideal, 100.0 * (1.0 - ideal / measured)


def uncoalesced_global(k: KernelEvidence) -> Finding | None:
    waste = _waste_pct(value(k, "global_load_bytes_per_sector"))
    excess = value(k, "global_excessive_sectors_pct")
    per_request = _ideal_sectors_waste(k) if waste is None and excess is None else None
    candidates = [w for w in (waste, excess, per_request[1] if per_request else None) if w is not None]
    if not candidates or max(candidates) < SECTOR_WASTE_MIN_PCT.value or not _material(k, "load"):
        return None
    worst = max(candidates)
    evidence = [
        item(k, "global_load_bytes_per_sector", threshold=SECTOR_BYTES_MAX, op="<"),
        fact(
            "global_load_sector_waste",
            worst,
            unit="%",
            source=f"{k.artifact or 'profile'} (unused share of each fetched sector)",
            threshold=SECTOR_WASTE_MIN_PCT,
            op=">=",
        ),
        item(k, "global_excessive_sectors_pct", threshold=SECTOR_WASTE_MIN_PCT, op=">="),
        item(k, "global_load_sectors_per_request"),
    ]
    if per_request is not None and k.isa is not None:
        widest = f"{k.isa.source or 'SASS'} (widest global load, {k.isa.global_load_bits} bits)"
        evidence.append(
            fact(
                "ideal_sectors_per_request",
                per_request[0],
                unit="sectors",
                source=widest,
                threshold=IDEAL_SECTORS_PER_REQUEST,
                op=">",
            )
        )
    return Finding(
        rule_id="nv.uncoalesced_global",
        symptom=S.UNCOALESCED_GLOBAL.value,
        confidence=Confidence.HIGH if worst >= 50.0 else Confidence.MEDIUM,
        evidence=evidence,
        inference=(
            "neighbouring threads read addresses far apart, so each 32-byte sector fetched carries few useful "
            "bytes: memory bandwidth is spent on data nobody uses"
        ),
        action_categories=[A.COALESCING, A.TILING, A.VECTORIZED_ACCESS],
        estimated_speedup_pct=worst,
        location=_marker_location(k, "UncoalescedGlobalAccess", "MemoryCacheAccessPattern"),
    )


def sparse_stores(k: KernelEvidence) -> Finding | None:
    waste = _waste_pct(value(k, "global_store_bytes_per_sector"))
    if waste is None or waste < SECTOR_WASTE_MIN_PCT.value or not _material(k, "store"):
        return None
    share = _traffic_share(k, "store")
    return Finding(
        rule_id="nv.sparse_stores",
        symptom=S.SPARSE_STORES.value,
        confidence=Confidence.HIGH if waste >= 50.0 else Confidence.MEDIUM,
        evidence=[
            item(k, "global_store_bytes_per_sector", threshold=SECTOR_BYTES_MAX, op="<"),
            fact(
                "global_store_sector_waste",
                waste,
                unit="%",
                source=f"{k.artifact or 'profile'} (1 - bytes per sector / 32)",
                threshold=SECTOR_WASTE_MIN_PCT,
                op=">=",
            ),
            fact(
                "global_store_sector_share",
                share,
                unit="% of global sectors",
                source=f"{k.artifact or 'profile'} (global_store_sectors / all global sectors)",
                threshold=TRAFFIC_SHARE_MIN_PCT,
                op=">=",
            ),
            item(k, "global_store_sectors_per_request"),
        ],
        inference="stores write only part of each 32-byte sector: strided or scattered writes waste write bandwidth",
        action_categories=[A.COALESCING, A.TILING],
        estimated_speedup_pct=waste,
    )


def smem_bank_conflicts(k: KernelEvidence) -> Finding | None:
    ld = value(k, "smem_load_bank_conflict_pct")
    st = value(k, "smem_store_bank_conflict_pct")
    worst = max((v for v in (ld, st) if v is not None), default=None)
    if worst is None or worst < BANK_CONFLICT_PCT.value:
        return None
    l1 = value(k, "l1_throughput_pct")
    return Finding(
        rule_id="nv.smem_bank_conflicts",
        symptom=S.SMEM_BANK_CONFLICTS.value,
        confidence=Confidence.HIGH if worst >= 50.0 else Confidence.MEDIUM,
        evidence=[
            item(k, "smem_load_bank_conflict_pct", threshold=BANK_CONFLICT_PCT, op=">="),
            item(k, "smem_store_bank_conflict_pct", threshold=BANK_CONFLICT_PCT, op=">="),
            item(k, "smem_bank_conflicts"),
            item(k, "l1_throughput_pct"),
        ],
        inference=(
            "threads of a warp hit the same shared-memory bank, so each access is replayed as several wavefronts"
        ),
        action_categories=[A.SMEM_SWIZZLE_PADDING],
        estimated_speedup_pct=worst * l1 / 100.0 if l1 is not None else worst,
        location=_marker_location(k, "SharedMemoryConflicts", "UncoalescedSharedAccess"),
    )


# -- instructions ---------------------------------------------------------------------------------


def thread_divergence(k: KernelEvidence) -> Finding | None:
    active = value(k, "active_threads_per_warp")
    pred = value(k, "not_predicated_off_threads_per_warp")
    used = min((v for v in (active, pred) if v is not None), default=None)
    if used is None or used >= ACTIVE_THREADS_MIN.value:
        return None
    return Finding(
        rule_id="nv.thread_divergence",
        symptom=S.THREAD_DIVERGENCE.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            item(k, "active_threads_per_warp", threshold=ACTIVE_THREADS_MIN, op="<"),
            item(k, "not_predicated_off_threads_per_warp", threshold=ACTIVE_THREADS_MIN, op="<"),
            item(k, "branch_uniform_pct"),
        ],
        inference=(
            f"on average only {used:.1f} of 32 threads do useful work per instruction: divergent branches, "
            "predication (masked tails) or early-exiting threads"
        ),
        action_categories=[A.DIVERGENCE, A.BLOCK_SIZE],
        estimated_speedup_pct=100.0 * (1.0 - used / 32.0),
    )


def block_size_not_warp_multiple(k: KernelEvidence) -> Finding | None:
    block = value(k, "block_size_threads")
    if block is None or block <= 0 or block % WARP_SIZE.value == 0:
        return None
    warps = math.ceil(block / WARP_SIZE.value)
    last = block % WARP_SIZE.value
    return Finding(
        rule_id="nv.block_size_not_warp_multiple",
        symptom=S.BLOCK_SIZE_NOT_WARP_MULTIPLE.value,
        confidence=Confidence.HIGH,
        evidence=[item(k, "block_size_threads", threshold=WARP_SIZE, op="not a multiple of")],
        inference=f"the last of {warps} warps per block runs with only {last:g} of 32 threads",
        action_categories=[A.BLOCK_SIZE],
        estimated_speedup_pct=100.0 * (1.0 / warps) * (1.0 - last / WARP_SIZE.value),
    )


_ATOMIC_FAMILIES = ("ATOM", "ATOMG", "RED", "REDG")


def _is_atomic(text: str | None) -> bool:
    return _family(text) in _ATOMIC_FAMILIES


def atomics(k: KernelEvidence) -> Finding | None:
    n = value(k, "atomic_inst")
    if not n:
        return None
    hot = next(
        (h for h in k.hotspots if _is_atomic(h.text) and (h.share_pct or 0.0) > HOTSPOT_SHARE_PCT.value),
        None,
    )
    drain = stall_share(k, "drain")
    draining = drain is not None and drain > STALL_SHARE_PCT.value
    if hot is None and not draining and k.hotspots:
        return None  # sampled, and neither an atomic instruction nor the drain at exit is hot
    evidence = [item(k, "atomic_inst"), item(k, "inst_executed")]
    if hot is not None:
        evidence.append(
            fact(
                "stall_samples_share",
                hot.share_pct,
                unit="%",
                source=f"{k.artifact or 'profile'} (PC sampling at {hot.location}: {hot.text})",
                threshold=HOTSPOT_SHARE_PCT,
                op=">",
            )
        )
    if draining:
        evidence += _stall_items(k, "drain")
    if hot is not None or draining:
        inference = "global atomics serialize on contended addresses: warps stall on them" + (
            " and at exit, draining the outstanding atomic updates" if draining else ""
        )
        confidence = Confidence.HIGH
    else:
        inference = "the kernel issues global atomics (no PC sampling to tell whether they are hot)"
        confidence = Confidence.LOW
    return Finding(
        rule_id="nv.atomics",
        symptom=S.ATOMICS.value,
        confidence=confidence,
        evidence=evidence,
        inference=inference,
        action_categories=[A.ATOMICS, A.SPLIT_K],
        location=hot.location if hot is not None else _hotspot_for(k, "drain"),
    )


def fp64_use(k: KernelEvidence) -> Finding | None:
    n = value(k, "fp64_inst")
    pipe = value(k, "fp64_pipe_pct")
    busy_pipe = pipe is not None and pipe >= PIPE_LOW_PCT.value
    if not n and not busy_pipe:
        return None
    return Finding(
        rule_id="nv.fp64_use",
        symptom=S.FP64_USE.value,
        confidence=Confidence.MEDIUM if busy_pipe else Confidence.LOW,
        evidence=[item(k, "fp64_inst"), item(k, "fp64_pipe_pct", threshold=PIPE_LOW_PCT, op=">=")],
        inference=(
            "the kernel executes FP64 instructions; unless the task is fp64 these come from accidental promotion "
            "(Python float constants, float64 inputs) and run at a fraction of the FP32 rate on most GPUs"
        ),
        action_categories=[A.PRECISION],
    )


def _narrow_loads(k: KernelEvidence) -> bool:
    """The widest global load in the SASS is under 128 bits (False when the SASS is unknown)."""
    bits = k.isa.global_load_bits if k.isa is not None else None
    return bits is not None and bits < VECTOR_LOAD_BITS.value


def _waits_on_memory(k: KernelEvidence) -> bool:
    """Latency regime with long-scoreboard (global/local memory) stalls as the top stall reason."""
    top = top_stall(k)
    return _latency_regime(k) and top is not None and top[0] == "long_scoreboard" and top[1] > STALL_SHARE_PCT.value


def narrow_global_loads(k: KernelEvidence) -> Finding | None:
    """The widest global load is under 128 bits in a kernel where load instructions cost: memory-heavy
    (memory or DRAM throughput >= 60 %), issue-heavy (schedulers issue in >= 60 % of cycles, so every
    extra instruction takes an issue slot; NVIDIA, "CUDA Pro Tip: Increase Performance with Vectorized
    Memory Access": vector loads cut the instruction count for the same bytes), or latency-bound on
    memory (long-scoreboard stalls dominate: the bytes in flight per warp, which hide DRAM latency by
    Little's law, grow with the width of each load; V. Volkov, "Understanding Latency Hiding on GPUs",
    UC Berkeley, 2016)."""
    if k.isa is None or k.isa.global_load_bits is None or not _narrow_loads(k):
        return None
    dram = value(k, "dram_throughput_pct")
    mem = value(k, "memory_throughput_pct")
    issue = value(k, "issue_active_pct")
    busy = max((v for v in (dram, mem) if v is not None), default=None)
    memory_heavy = busy is not None and busy >= SOL_LATENCY_PCT.value
    issue_heavy = issue is not None and issue >= ISSUE_ACTIVE_LOW_PCT.value
    if not (memory_heavy or issue_heavy or _waits_on_memory(k)):
        return None
    evidence = [
        fact(
            "sass.global_load_bits_max",
            k.isa.global_load_bits,
            unit="bits",
            source=k.isa.source or "SASS",
            threshold=VECTOR_LOAD_BITS,
            op="<",
        )
    ]
    if memory_heavy:
        evidence += [
            item(k, "memory_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="),
            item(k, "dram_throughput_pct"),
        ]
        kind = "memory-heavy"
    elif issue_heavy:
        evidence += [
            item(k, "issue_active_pct", threshold=ISSUE_ACTIVE_LOW_PCT, op=">="),
            item(k, "memory_throughput_pct"),
        ]
        kind = "issue-heavy"
    else:
        evidence += [*_stall_items(k, "long_scoreboard"), item(k, "memory_throughput_pct")]
        kind = "memory-latency-bound"
    return Finding(
        rule_id="nv.narrow_global_loads",
        symptom=S.NARROW_GLOBAL_LOADS.value,
        confidence=Confidence.MEDIUM,
        evidence=evidence,
        inference=(
            f"the widest global load is {k.isa.global_load_bits} bits in a {kind} kernel: more load "
            "instructions than needed for the same bytes"
        ),
        action_categories=[A.VECTORIZED_ACCESS],
    )


NVIDIA_RULES: tuple[Rule, ...] = (
    Rule("nv.small_grid", S.SMALL_GRID, small_grid, "grid smaller than one wave / fewer blocks than SMs"),
    Rule("nv.memory_bound_near_roof", S.MEMORY_BOUND_NEAR_ROOF, memory_bound_near_roof, "DRAM >= 80% of peak"),
    Rule("nv.dram_bandwidth_bound", S.DRAM_BANDWIDTH_BOUND, dram_bandwidth_bound, "DRAM 60-80%, memory-dominated"),
    Rule("nv.compute_bound_no_tensor", S.COMPUTE_BOUND_NO_TENSOR, compute_bound_no_tensor, "FMA busy, tensor idle"),
    Rule("nv.compute_bound", S.COMPUTE_BOUND, compute_bound, "SM throughput dominates"),
    Rule("nv.register_spills", S.REGISTER_SPILLS, register_spills, "local-memory spill traffic"),
    Rule("nv.latency_bound", S.LATENCY_BOUND, latency_bound, "SOL < 60% and long-scoreboard stalls > 30%"),
    Rule("nv.uncoalesced_global", S.UNCOALESCED_GLOBAL, uncoalesced_global, "global loads waste sector bytes"),
    Rule("nv.smem_bank_conflicts", S.SMEM_BANK_CONFLICTS, smem_bank_conflicts, "bank conflicts >= 10% wavefronts"),
    Rule("nv.tail_effect", S.TAIL_EFFECT, tail_effect, "partial last wave >= 20% of run time"),
    Rule("nv.short_scoreboard", S.LATENCY_BOUND_SHORT_SCOREBOARD, short_scoreboard, "short-scoreboard stalls"),
    Rule("nv.mio_throttle", S.MIO_THROTTLE, mio_throttle, "MIO-throttle stalls > 30%"),
    Rule("nv.barrier_stalls", S.BARRIER_STALLS, barrier_stalls, "barrier stalls > 30%"),
    Rule("nv.lg_throttle", S.NARROW_GLOBAL_LOADS, lg_throttle, "LG-throttle stalls > 30%"),
    Rule(
        "nv.occupancy_limited_registers",
        S.OCCUPANCY_LIMITED_REGISTERS,
        _occupancy_limited("registers"),
        "theoretical occupancy < 80%, limited by registers",
    ),
    Rule(
        "nv.occupancy_limited_shared_mem",
        S.OCCUPANCY_LIMITED_SHARED_MEMORY,
        _occupancy_limited("shared_mem"),
        "theoretical occupancy < 80%, limited by shared memory",
    ),
    Rule(
        "nv.occupancy_limited_warps",
        S.OCCUPANCY_LIMITED_WARPS,
        _occupancy_limited("warps"),
        "theoretical occupancy < 80%, limited by warps per block",
    ),
    Rule(
        "nv.occupancy_limited_blocks",
        S.OCCUPANCY_LIMITED_BLOCKS,
        _occupancy_limited("blocks"),
        "theoretical occupancy < 80%, limited by blocks per SM",
    ),
    Rule("nv.achieved_occupancy_gap", S.ACHIEVED_OCCUPANCY_GAP, achieved_occupancy_gap, "theoretical - achieved > 10"),
    Rule("nv.sparse_stores", S.SPARSE_STORES, sparse_stores, "global stores waste sector bytes"),
    Rule("nv.thread_divergence", S.THREAD_DIVERGENCE, thread_divergence, "< 24 of 32 threads active"),
    Rule(
        "nv.block_size_not_warp_multiple",
        S.BLOCK_SIZE_NOT_WARP_MULTIPLE,
        block_size_not_warp_multiple,
        "block size not a multiple of 32",
    ),
    Rule("nv.atomics", S.ATOMICS, atomics, "hot global atomics"),
    Rule("nv.fp64_use", S.FP64_USE, fp64_use, "FP64 instructions executed"),
    Rule(
        "nv.narrow_global_loads",
        S.NARROW_GLOBAL_LOADS,
        narrow_global_loads,
        "widest LDG < 128 bits, memory- or issue-heavy",
    ),
    Rule(
        "nv.onchip_bandwidth_bound",
        S.ONCHIP_BANDWIDTH_BOUND,
        onchip_bandwidth_bound,
        "memory SOL >= 60%, DRAM <= half of it",
    ),
    Rule("nv.low_issue_efficiency", S.LOW_ISSUE_EFFICIENCY, low_issue_efficiency, "issue active < 60%, mixed stalls"),
)
