"""NVIDIA evidence rules: Nsight Compute metrics -> findings, as one table read by :mod:`kernelopt.evidence.rules`.

Every rule reads normalized metrics (:mod:`kernelopt.evidence.nvidia_metrics`) and compares them with a
cited threshold (:mod:`kernelopt.evidence.thresholds`, taken from Nsight Compute's own rule files).
:data:`NVIDIA_RULES` lists them in priority order: the bottleneck-level rules first (grid, roof,
latency), then resource limits, then access-pattern and instruction-level rules. A rule with several
rows is one rule with branches (the first that fires speaks); four rules are computed combinations
(:func:`tail_effect`, :func:`compute_bound`, :func:`atomics`, :func:`onchip_bandwidth_bound`).

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
from collections.abc import Callable

from kernelopt.actions import ActionCategory as A
from kernelopt.evidence.model import Confidence, EvidenceItem, KernelEvidence
from kernelopt.evidence.rules import (
    Citation,
    Cite,
    Cmp,
    ComputedRule,
    Diff,
    EvidenceSpec,
    Fact,
    Grade,
    Largest,
    Row,
    RuleTable,
    Smallest,
    Stall,
    Total,
    Verdict,
    When,
    cite,
    fact,
    item,
    stall_share,
    top_stall,
    value,
)
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

Location = Callable[[KernelEvidence], str | None]

# -- predicates -----------------------------------------------------------------------------------


def _family(text: str | None) -> str | None:
    """The opcode family of a SASS text (``@P0 LDL.64 R2, [R1]`` -> ``LDL``)."""
    ins = parse_instruction(text) if text else None
    return ins.family if ins is not None else None


def latency_regime(k: KernelEvidence) -> bool:
    """Both SOL throughputs below 60% (SOLBottleneck's latency regime); False when unknown."""
    sm, mem = value(k, "sm_throughput_pct"), value(k, "memory_throughput_pct")
    return sm is not None and mem is not None and max(sm, mem) < SOL_LATENCY_PCT.value


def compute_heavy(k: KernelEvidence) -> bool:
    """SM throughput >= 80%, or >= 60% and 10 points above memory (SOLBottleneck)."""
    sm, mem = value(k, "sm_throughput_pct"), value(k, "memory_throughput_pct")
    if sm is None or mem is None:
        return False
    return sm >= SOL_HIGH_PCT.value or (sm >= SOL_LATENCY_PCT.value and sm - mem >= SOL_BALANCE_POINTS.value)


def _narrow_loads(k: KernelEvidence) -> bool:
    """The widest global load in the SASS is under 128 bits (False when the SASS is unknown)."""
    bits = k.isa.global_load_bits if k.isa is not None else None
    return bits is not None and bits < VECTOR_LOAD_BITS.value


def _waits_on_memory(k: KernelEvidence) -> bool:
    """Latency regime with long-scoreboard (global/local memory) stalls as the top stall reason."""
    top = top_stall(k)
    return latency_regime(k) and top is not None and top[0] == "long_scoreboard" and top[1] > STALL_SHARE_PCT.value


def _no_dominant_stall(k: KernelEvidence) -> bool:
    """A stall breakdown exists and no reason in it takes more than 30% (a specific stall rule would)."""
    top = top_stall(k)
    return bool(k.stall_breakdown_pct) and (top is None or top[1] <= STALL_SHARE_PCT.value)


def _limited_by(limiter: str) -> Callable[[KernelEvidence], bool]:
    return lambda k: limiter in k.occupancy_limiters


def _static_spills(k: KernelEvidence) -> bool:
    """The SASS holds LDL/STL, or the compiler reports spilled registers."""
    return k.isa is not None and bool(k.isa.spill_ops or k.isa.spilled_registers)


def _traffic_share(k: KernelEvidence, which: str) -> float | None:
    """Share (percent) of global L1 sectors that are loads (``which="load"``) or stores; ``None`` if unknown."""
    ld, st = value(k, "global_load_sectors"), value(k, "global_store_sectors")
    if ld is None or st is None or ld + st <= 0:
        return None
    return 100.0 * (ld if which == "load" else st) / (ld + st)


def _material(which: str) -> Callable[[KernelEvidence], bool]:
    """The loads (stores) carry at least 10% of the global sectors, or the split is unknown."""

    def test(k: KernelEvidence) -> bool:
        share = _traffic_share(k, which)
        return share is None or share >= TRAFFIC_SHARE_MIN_PCT.value

    return test


_FMA_BUSY_TENSOR_IDLE = (When("tensor_pipe_pct", Cmp.LT, PIPE_LOW_PCT), When("fma_pipe_pct", Cmp.GE, PIPE_HIGH_PCT))


def stall_dominates(reason: str) -> tuple[When, When]:
    """CPIStall: ``reason`` takes more than 30% of the cycles and issue active is below 80% (or unknown)."""
    return (
        When(Stall(reason), Cmp.GT, STALL_SHARE_PCT),
        When("issue_active_pct", Cmp.LT, ISSUE_ACTIVE_STALL_PCT, missing=True),
    )


# -- quantities -----------------------------------------------------------------------------------


def _waste_pct(bytes_per_sector: float | None) -> float | None:
    if bytes_per_sector is None or bytes_per_sector <= 0:
        return None
    return 100.0 * (1.0 - bytes_per_sector / SECTOR_BYTES_MAX.value)


def _ideal_sectors_waste(k: KernelEvidence) -> tuple[float, float] | None:
    """(ideal sectors per request, waste %) from measured load sectors/request and the widest SASS load."""
    measured = value(k, "global_load_sectors_per_request")
    if measured is None or k.isa is None or k.isa.global_load_bits is None or measured <= 0:
        return None
    ideal = k.isa.global_load_bits / 8.0  # 32 threads x (bits / 8) bytes / 32-byte sectors
    if measured <= ideal * IDEAL_SECTORS_PER_REQUEST.value:
        return ideal, 0.0
    return ideal, 100.0 * (1.0 - ideal / measured)


def _per_request_waste(k: KernelEvidence) -> tuple[float, float] | None:
    """:func:`_ideal_sectors_waste`, used only when neither bytes per sector nor excess sectors are known."""
    known = _waste_pct(value(k, "global_load_bytes_per_sector")) is not None
    return None if known or value(k, "global_excessive_sectors_pct") is not None else _ideal_sectors_waste(k)


def _load_waste(k: KernelEvidence) -> float | None:
    """The worst estimate of the unused share of each fetched global-load sector (percent)."""
    per_request = _per_request_waste(k)
    estimates = (
        _waste_pct(value(k, "global_load_bytes_per_sector")),
        value(k, "global_excessive_sectors_pct"),
        per_request[1] if per_request else None,
    )
    return max((w for w in estimates if w is not None), default=None)


def _store_waste(k: KernelEvidence) -> float | None:
    return _waste_pct(value(k, "global_store_bytes_per_sector"))


def _store_share(k: KernelEvidence) -> float | None:
    return _traffic_share(k, "store")


def _idle_sm_pct(k: KernelEvidence) -> float | None:
    """Share of SMs without a block (fewer blocks than SMs)."""
    grid, sms = value(k, "grid_size_blocks"), value(k, "sm_count")
    return 100.0 * (sms - grid) / sms if grid is not None and sms else None


def _occupancy_gap_pct(k: KernelEvidence) -> float | None:
    theo, ach = value(k, "theoretical_occupancy_pct"), value(k, "achieved_occupancy_pct")
    return 100.0 * (theo - ach) / theo if theo and ach is not None else None


_LOCAL_TRAFFIC = Total(
    ("spill_requests", "local_load_inst", "local_store_inst", "local_load_bytes", "local_store_bytes")
)
_WORST_BANK_CONFLICT = Largest(("smem_load_bank_conflict_pct", "smem_store_bank_conflict_pct"))
_THREADS_USED = Smallest(("active_threads_per_warp", "not_predicated_off_threads_per_warp"))


def _bank_conflict_cost(k: KernelEvidence) -> float | None:
    worst, l1 = _WORST_BANK_CONFLICT(k), value(k, "l1_throughput_pct")
    return None if worst is None else worst * l1 / 100.0 if l1 is not None else worst


def _idle_lane_pct(k: KernelEvidence) -> float | None:
    used = _THREADS_USED(k)
    return None if used is None else 100.0 * (1.0 - used / 32.0)


def _last_warp_threads(k: KernelEvidence) -> float | None:
    block = value(k, "block_size_threads")
    return None if block is None else block % WARP_SIZE.value


def _warps_per_block(k: KernelEvidence) -> float | None:
    block = value(k, "block_size_threads")
    return None if block is None else math.ceil(block / WARP_SIZE.value)


def _masked_lane_pct(k: KernelEvidence) -> float | None:
    warps, last = _warps_per_block(k), _last_warp_threads(k)
    return None if not warps or last is None else 100.0 * (1.0 / warps) * (1.0 - last / WARP_SIZE.value)


def _widest_load_bits(k: KernelEvidence) -> float | None:
    return k.isa.global_load_bits if k.isa is not None else None


# -- evidence functions and locations -------------------------------------------------------------


def stall_evidence(reason: str) -> tuple[EvidenceSpec, ...]:
    """The stall's share (vs 30%), its cycles per instruction and issue active (vs 80%)."""
    return (
        Fact(f"stall_{reason}", Stall(reason), "% of warp cycles", "stall_breakdown_pct", STALL_SHARE_PCT, ">"),
        f"stall_{reason}_cycles_per_inst",
        Cite("issue_active_pct", "<", ISSUE_ACTIVE_STALL_PCT),
    )


def stall_hotspot(reason: str) -> Location:
    """The first hotspot whose dominant stall is ``reason`` and that holds more than 10% of the samples."""

    def location(k: KernelEvidence) -> str | None:
        for h in k.hotspots:
            if h.dominant_stall == reason and (h.share_pct or 0.0) > HOTSPOT_SHARE_PCT.value:
                return h.location
        return None

    return location


def marker(*rule_ids: str) -> Location:
    """Where Nsight Compute's rules ``rule_ids`` placed a marker (a source line before a SASS address)."""

    def location(k: KernelEvidence) -> str | None:
        for m in k.source_markers:
            if m.rule_id in rule_ids and m.kind == "source":
                return m.location
        for m in k.source_markers:
            if m.rule_id in rule_ids:
                return m.location
        return None

    return location


def _spill_location(k: KernelEvidence) -> str | None:
    return next((h.location for h in k.hotspots if _family(h.text) in ("LDL", "STL")), None)


def _grid_against_sms(k: KernelEvidence) -> list[EvidenceItem]:
    if value(k, "grid_size_blocks") is None or value(k, "sm_count") is None:
        return []
    return [item(k, "grid_size_blocks", threshold=GRID_BELOW_SMS, op="< sm_count x"), item(k, "sm_count")]


def _spill_facts(k: KernelEvidence) -> list[EvidenceItem]:
    if k.isa is None:
        return []
    out = []
    if k.isa.spilled_registers is not None:
        out.append(
            fact(
                "compiler.spilled_registers",
                k.isa.spilled_registers,
                unit="registers",
                source=k.isa.source or "compiler",
                threshold=SPILL_ANY,
                op=">",
            )
        )
    source = k.isa.source or "SASS"
    out.append(fact("sass.LDL+STL", k.isa.spill_ops, unit="instructions", source=source, threshold=SPILL_ANY, op=">"))
    return out


def _ideal_sectors_fact(k: KernelEvidence) -> list[EvidenceItem]:
    per_request = _per_request_waste(k)
    if per_request is None or k.isa is None:
        return []
    widest = f"{k.isa.source or 'SASS'} (widest global load, {k.isa.global_load_bits} bits)"
    return [
        fact(
            "ideal_sectors_per_request",
            per_request[0],
            unit="sectors",
            source=widest,
            threshold=IDEAL_SECTORS_PER_REQUEST,
            op=">",
        )
    ]


def _widest_load_fact(k: KernelEvidence) -> list[EvidenceItem]:
    if k.isa is None:
        return []
    bits, source = k.isa.global_load_bits, k.isa.source or "SASS"
    return [fact("sass.global_load_bits_max", bits, unit="bits", source=source, threshold=VECTOR_LOAD_BITS, op="<")]


def _largest_stall_fact(k: KernelEvidence) -> list[EvidenceItem]:
    top = top_stall(k)
    if top is None:
        return []
    source = f"{k.artifact or 'profile'} (stall_breakdown_pct, largest)"
    return [fact(f"stall_{top[0]}", top[1], unit="% of warp cycles", source=source)]


# -- the computed rules ---------------------------------------------------------------------------


def tail_effect(k: KernelEvidence) -> Verdict | None:
    """At least one full wave plus a partial one that takes >= 20% of the run time, under-filling the GPU."""
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
    share = fact(
        "partial_wave_share",
        tail_pct,
        unit="% of run time (upper bound)",
        source=f"{k.artifact or 'profile'} (1 / (full waves + 1))",
        threshold=TAIL_EFFECT_SHARE,
        op=">=",
    )
    return Verdict(
        evidence=[
            item(k, "waves_per_sm"),
            share,
            item(k, "achieved_occupancy_pct"),
            item(k, "theoretical_occupancy_pct"),
        ],
        inference=(
            f"{int(whole)} full wave(s) plus a partial wave: the last wave runs with most SMs idle and may take up to "
            f"{tail_pct:.0f}% of the run time"
        ),
        actions=[A.BLOCK_SIZE, A.PERSISTENT_KERNEL, A.AUTOTUNE],
        speedup_pct=tail_pct,
    )


def onchip_bandwidth_bound(k: KernelEvidence) -> Verdict | None:
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
    return Verdict(
        evidence=cite(
            k,
            (
                Cite("memory_throughput_pct", ">=", SOL_LATENCY_PCT),
                "dram_throughput_pct",
                "l1_throughput_pct",
                "l2_throughput_pct",
            ),
        ),
        inference=(
            f"the memory traffic that limits the kernel is served by {where} while DRAM runs at most half as busy: "
            "operands are re-read from the caches, so each program does too little work per byte it loads"
        ),
        actions=categories,
    )


_PIPES = (
    ("tensor_pipe_pct", "tensor"),
    ("fma_pipe_pct", "FP32 FMA"),
    ("fp64_pipe_pct", "FP64"),
    ("alu_pipe_pct", "integer ALU"),
)


def compute_bound(k: KernelEvidence) -> Verdict | None:
    """SM throughput dominates; the busiest pipe decides what the cost is (tensor, FP64, instruction mix)."""
    if not compute_heavy(k) or all(test(k) for test in _FMA_BUSY_TENSOR_IDLE):
        return None  # compute_bound_no_tensor reports the saturated FMA pipe with idle tensor cores
    measured = [(name, label, v) for name, label in _PIPES if (v := value(k, name)) is not None]
    busiest = max(measured, key=lambda p: p[2]) if measured else None
    evidence = [item(k, "sm_throughput_pct", threshold=SOL_LATENCY_PCT, op=">="), item(k, "memory_throughput_pct")]
    evidence += [item(k, name) for name, _ in _PIPES]
    if busiest is not None and busiest[0] == "tensor_pipe_pct" and busiest[2] >= PIPE_LOW_PCT.value:
        inference = (
            f"compute throughput dominates and the tensor pipe is the busiest ({busiest[2]:.0f}%): gains come from "
            "keeping the tensor cores fed (bigger tiles, deeper pipelining, warp specialization) or a lower precision"
        )
        return Verdict(
            evidence, inference, [A.TILING, A.WARP_SPECIALIZATION, A.SOFTWARE_PIPELINING, A.PRECISION], Confidence.HIGH
        )
    if busiest is not None and busiest[0] == "fp64_pipe_pct" and busiest[2] >= PIPE_HIGH_PCT.value:
        inference = f"compute throughput dominates and the FP64 pipe is the busiest ({busiest[2]:.0f}%)"
        return Verdict(evidence, inference, [A.PRECISION, A.TENSOR_CORE_USE], Confidence.HIGH)
    shown = f"the busiest pipe is {busiest[1]} at {busiest[2]:.0f}%" if busiest else "no pipe metric was collected"
    inference = (
        f"compute throughput dominates without a saturated FMA or tensor pipe ({shown}): the instruction mix "
        "(integer/address math, special functions, conversions) is the cost"
    )
    return Verdict(evidence, inference, [A.INSTRUCTION_MIX, A.TENSOR_CORE_USE], Confidence.MEDIUM)


_ATOMIC_FAMILIES = ("ATOM", "ATOMG", "RED", "REDG")


def atomics(k: KernelEvidence) -> Verdict | None:
    """Global atomics that are hot in the PC samples or drain at exit (low confidence without sampling)."""
    if not value(k, "atomic_inst"):
        return None
    hot = next(
        (
            h
            for h in k.hotspots
            if _family(h.text) in _ATOMIC_FAMILIES and (h.share_pct or 0.0) > HOTSPOT_SHARE_PCT.value
        ),
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
        evidence += cite(k, stall_evidence("drain"))
    actions = [A.ATOMICS, A.SPLIT_K]
    if hot is None and not draining:  # no PC samples at all
        return Verdict(
            evidence,
            "the kernel issues global atomics (no PC sampling to tell whether they are hot)",
            actions,
            Confidence.LOW,
        )
    inference = "global atomics serialize on contended addresses: warps stall on them" + (
        " and at exit, draining the outstanding atomic updates" if draining else ""
    )
    location = hot.location if hot is not None else stall_hotspot("drain")(k)
    return Verdict(evidence, inference, actions, Confidence.HIGH, location=location)


# -- the table ------------------------------------------------------------------------------------
# One rule per block: id, symptom, description; when (every test holds); evidence; inference; actions and
# the rest. ``X.otherwise(...)`` is a further branch of rule X, tried when X does not fire.


def stall_rule(
    rule_id: str, symptom: S, reason: str, *, also: tuple[str, ...], inference: str, actions: tuple[A, ...]
) -> Row:
    """A CPIStall rule: stall ``reason`` dominates; cites it and ``also``; points at its hottest line."""
    return Row(
        rule_id,
        symptom,
        f"{reason} stalls > 30% of warp cycles",
        when=stall_dominates(reason),
        evidence=(*stall_evidence(reason), *also),
        inference=inference,
        actions=actions,
        location=stall_hotspot(reason),
    )


def occupancy_rule(
    rule_id: str, symptom: S, limiter: str, what: str, *, cites: tuple[str, str], actions: tuple[A, ...]
) -> Row:
    """TheoreticalOccupancy: below 80% and limited by ``limiter`` (its block limit and resource cited)."""
    return Row(
        rule_id,
        symptom,
        f"theoretical occupancy < 80%, limited by {limiter}",
        when=(When("theoretical_occupancy_pct", Cmp.LT, THEORETICAL_OCCUPANCY_LOW_PCT), _limited_by(limiter)),
        evidence=(
            Cite("theoretical_occupancy_pct", "<", THEORETICAL_OCCUPANCY_LOW_PCT),
            *cites,
            "achieved_occupancy_pct",
        ),
        inference=f"theoretical occupancy is limited by {what}: fewer warps per SM are available to hide latency",
        actions=actions,
        confidence=Grade(latency_regime, Confidence.MEDIUM, Confidence.LOW),
    )


_WIDER_LOADS = (
    "the widest global load is {0} bits in a %s kernel: more load instructions than needed for the same bytes"
)

# fmt: off
_FEWER_BLOCKS_THAN_SMS = Row("nv.small_grid", S.SMALL_GRID, "fewer blocks than SMs",
    when=(When("sm_count", Cmp.GT, 0.0), When(Diff("grid_size_blocks", "sm_count"), Cmp.LT, 0.0)),
    evidence=(Cite("waves_per_sm", "<", SMALL_GRID_WAVES), _grid_against_sms, "sm_throughput_pct",
              "memory_throughput_pct"),
    inference="the grid has too few blocks to keep every SM busy for even one wave, so most of the GPU idles",
    actions=(A.BLOCK_SIZE, A.SPLIT_K, A.TILING), confidence=Confidence.HIGH, speedup=_idle_sm_pct)
_UNDER_ONE_WAVE = _FEWER_BLOCKS_THAN_SMS.otherwise(description="grid smaller than one wave, latency regime",
    when=(When("waves_per_sm", Cmp.LT, SMALL_GRID_WAVES), latency_regime), speedup=None)
_MEMORY_ROOF = Row("nv.memory_bound_near_roof", S.MEMORY_BOUND_NEAR_ROOF, "DRAM >= 80% of peak",
    when=(When("dram_throughput_pct", Cmp.GE, SOL_HIGH_PCT),),
    evidence=(Cite("dram_throughput_pct", ">=", SOL_HIGH_PCT), "dram_gbps", "dram_read_bytes", "dram_write_bytes",
              "sm_throughput_pct"),
    inference="DRAM is near its peak bandwidth: the kernel can only get faster by moving fewer bytes "
              "(fusion, lower precision, reuse through cache) — or the loop should stop here",
    actions=(A.REDUCE_BYTES, A.FUSION, A.PRECISION), confidence=Confidence.HIGH)
_DRAM_BANDWIDTH = Row("nv.dram_bandwidth_bound", S.DRAM_BANDWIDTH_BOUND, "DRAM 60-80%, memory-dominated",
    when=(When("dram_throughput_pct", Cmp.GE, SOL_LATENCY_PCT), When("dram_throughput_pct", Cmp.LT, SOL_HIGH_PCT),
          When(Diff("memory_throughput_pct", "sm_throughput_pct"), Cmp.GE, SOL_BALANCE_POINTS)),
    evidence=(Cite("dram_throughput_pct", ">=", SOL_LATENCY_PCT), "memory_throughput_pct",
              Cite("sm_throughput_pct", "<= memory -", SOL_BALANCE_POINTS), "dram_gbps"),
    inference="memory traffic dominates and DRAM runs at 60-80% of peak: the access stream is not yet efficient "
              "enough to reach the roof (narrow or strided accesses, too few bytes in flight)",
    actions=(A.VECTORIZED_ACCESS, A.TMA_ASYNC_COPY, A.REDUCE_BYTES, A.FUSION))
_NO_TENSOR_CORES = Row("nv.compute_bound_no_tensor", S.COMPUTE_BOUND_NO_TENSOR, "FMA busy, tensor idle",
    when=(compute_heavy, *_FMA_BUSY_TENSOR_IDLE),
    evidence=(Cite("sm_throughput_pct", ">=", SOL_LATENCY_PCT), Cite("fma_pipe_pct", ">=", PIPE_HIGH_PCT),
              Cite("tensor_pipe_pct", "<", PIPE_LOW_PCT)),
    inference="the FP32 FMA pipe is saturated while the tensor cores are idle",
    actions=(A.TENSOR_CORE_USE, A.PRECISION), confidence=Confidence.HIGH)
_COMPUTE_BOUND = ComputedRule("nv.compute_bound", S.COMPUTE_BOUND, compute_bound, "SM throughput dominates")
_SPILL_TRAFFIC = Row("nv.register_spills", S.REGISTER_SPILLS, "local-memory spill traffic",
    when=(When(_LOCAL_TRAFFIC, Cmp.GT, 0.0),),
    evidence=(Cite("spill_requests", ">", SPILL_ANY), "local_load_inst", "local_store_inst", "local_load_bytes",
              "local_store_bytes", "registers_per_thread", _spill_facts),
    inference="registers spill to local memory: every spilled value costs a round trip through L1/L2 instead of a "
              "register read",
    actions=(A.REGISTER_PRESSURE, A.BLOCK_SIZE, A.NUM_WARPS), confidence=Confidence.HIGH, location=_spill_location)
_STATIC_SPILLS = _SPILL_TRAFFIC.otherwise(description="spill instructions in the SASS or compiler-reported spills",
    when=(_static_spills,), confidence=Confidence.MEDIUM)
_LATENCY_NARROW_LOADS = Row("nv.latency_bound", S.LATENCY_BOUND, "SOL < 60%, long scoreboard > 30%, narrow loads",
    when=(latency_regime, *stall_dominates("long_scoreboard"), _narrow_loads),
    evidence=(Cite("sm_throughput_pct", "<", SOL_LATENCY_PCT), Cite("memory_throughput_pct", "<", SOL_LATENCY_PCT),
              *stall_evidence("long_scoreboard"), "achieved_occupancy_pct"),
    inference="warps mostly wait on global/local memory results (long scoreboard) while neither compute nor "
              "memory bandwidth is busy: too few loads in flight to hide DRAM latency",
    actions=(A.VECTORIZED_ACCESS, A.SOFTWARE_PIPELINING, A.TMA_ASYNC_COPY, A.OCCUPANCY, A.NUM_WARPS),
    confidence=Grade(When("waves_per_sm", Cmp.LT, SMALL_GRID_WAVES), Confidence.MEDIUM, Confidence.HIGH),
    location=stall_hotspot("long_scoreboard"))
_LATENCY = _LATENCY_NARROW_LOADS.otherwise(description="SOL < 60% and long-scoreboard stalls > 30%",
    when=(latency_regime, *stall_dominates("long_scoreboard")),
    actions=(A.SOFTWARE_PIPELINING, A.TMA_ASYNC_COPY, A.OCCUPANCY, A.NUM_WARPS))
_UNCOALESCED = Row("nv.uncoalesced_global", S.UNCOALESCED_GLOBAL, "global loads waste sector bytes",
    when=(When(_load_waste, Cmp.GE, SECTOR_WASTE_MIN_PCT), _material("load")),
    evidence=(Cite("global_load_bytes_per_sector", "<", SECTOR_BYTES_MAX),
              Fact("global_load_sector_waste", _load_waste, "%", "unused share of each fetched sector",
                   SECTOR_WASTE_MIN_PCT, ">="),
              Cite("global_excessive_sectors_pct", ">=", SECTOR_WASTE_MIN_PCT), "global_load_sectors_per_request",
              _ideal_sectors_fact),
    inference="neighbouring threads read addresses far apart, so each 32-byte sector fetched carries few useful "
              "bytes: memory bandwidth is spent on data nobody uses",
    actions=(A.COALESCING, A.TILING, A.VECTORIZED_ACCESS),
    confidence=Grade(When(_load_waste, Cmp.GE, 50.0), Confidence.HIGH, Confidence.MEDIUM), speedup=_load_waste,
    location=marker("UncoalescedGlobalAccess", "MemoryCacheAccessPattern"))
_BANK_CONFLICTS = Row("nv.smem_bank_conflicts", S.SMEM_BANK_CONFLICTS, "bank conflicts >= 10% wavefronts",
    when=(When(_WORST_BANK_CONFLICT, Cmp.GE, BANK_CONFLICT_PCT),),
    evidence=(Cite("smem_load_bank_conflict_pct", ">=", BANK_CONFLICT_PCT),
              Cite("smem_store_bank_conflict_pct", ">=", BANK_CONFLICT_PCT), "smem_bank_conflicts",
              "l1_throughput_pct"),
    inference="threads of a warp hit the same shared-memory bank, so each access is replayed as several wavefronts",
    actions=(A.SMEM_SWIZZLE_PADDING,),
    confidence=Grade(When(_WORST_BANK_CONFLICT, Cmp.GE, 50.0), Confidence.HIGH, Confidence.MEDIUM),
    speedup=_bank_conflict_cost, location=marker("SharedMemoryConflicts", "UncoalescedSharedAccess"))
_TAIL_EFFECT = ComputedRule("nv.tail_effect", S.TAIL_EFFECT, tail_effect, "partial last wave >= 20% of run time")
_SHORT_SCOREBOARD = stall_rule("nv.short_scoreboard", S.LATENCY_BOUND_SHORT_SCOREBOARD, "short_scoreboard",
    also=("smem_bank_conflicts",),
    inference="warps wait on shared-memory or special-function (MUFU) results (short scoreboard): shared-memory "
              "latency, often made worse by bank conflicts",
    actions=(A.SMEM_SWIZZLE_PADDING, A.INSTRUCTION_MIX, A.SOFTWARE_PIPELINING))
_MIO_THROTTLE = stall_rule("nv.mio_throttle", S.MIO_THROTTLE, "mio_throttle", also=("smem_bank_conflicts",),
    inference="the MIO queue (shared memory, special math, dynamic branches) is full: too many narrow shared-memory "
              "instructions or bank-conflict replays",
    actions=(A.VECTORIZED_ACCESS, A.SMEM_SWIZZLE_PADDING, A.INSTRUCTION_MIX))
_BARRIER = stall_rule("nv.barrier_stalls", S.BARRIER_STALLS, "barrier", also=("block_size_threads",),
    inference="warps wait at block barriers for sibling warps: uneven work before __syncthreads or large blocks",
    actions=(A.BLOCK_SIZE, A.WARP_SPECIALIZATION, A.SOFTWARE_PIPELINING))
_LG_THROTTLE = stall_rule("nv.lg_throttle", S.NARROW_GLOBAL_LOADS, "lg_throttle",
    also=("local_load_inst", "local_store_inst"),
    inference="the local/global memory instruction queue is full: many narrow global or local (spill) accesses "
              "that could be fewer, wider ones",
    actions=(A.VECTORIZED_ACCESS, A.REGISTER_PRESSURE))
_REGISTER_LIMIT = occupancy_rule("nv.occupancy_limited_registers", S.OCCUPANCY_LIMITED_REGISTERS, "registers",
    "register use per thread", cites=("occupancy_limit_registers_blocks", "registers_per_thread"),
    actions=(A.REGISTER_PRESSURE, A.NUM_WARPS, A.BLOCK_SIZE))
_SHARED_MEMORY_LIMIT = occupancy_rule("nv.occupancy_limited_shared_mem", S.OCCUPANCY_LIMITED_SHARED_MEMORY,
    "shared_mem", "shared memory per block", cites=("occupancy_limit_shared_mem_blocks", "shared_mem_per_block_bytes"),
    actions=(A.TILING, A.SOFTWARE_PIPELINING, A.BLOCK_SIZE))
_WARPS_LIMIT = occupancy_rule("nv.occupancy_limited_warps", S.OCCUPANCY_LIMITED_WARPS, "warps",
    "the number of warps per block", cites=("occupancy_limit_warps_blocks", "block_size_threads"),
    actions=(A.BLOCK_SIZE, A.NUM_WARPS))
_BLOCKS_LIMIT = occupancy_rule("nv.occupancy_limited_blocks", S.OCCUPANCY_LIMITED_BLOCKS, "blocks",
    "the maximum number of blocks per SM (blocks are too small)",
    cites=("occupancy_limit_blocks_blocks", "block_size_threads"), actions=(A.BLOCK_SIZE, A.NUM_WARPS))
_OCCUPANCY_GAP = Row("nv.achieved_occupancy_gap", S.ACHIEVED_OCCUPANCY_GAP, "theoretical - achieved > 10",
    when=(When(Diff("theoretical_occupancy_pct", "achieved_occupancy_pct"), Cmp.GT, OCCUPANCY_GAP_POINTS),),
    evidence=("theoretical_occupancy_pct", Cite("achieved_occupancy_pct", "< theoretical -", OCCUPANCY_GAP_POINTS),
              "waves_per_sm"),
    inference="achieved occupancy is far below what the launch allows: load imbalance between warps/blocks, "
              "a partial last wave, or scheduling overhead",
    actions=(A.BLOCK_SIZE, A.PERSISTENT_KERNEL, A.AUTOTUNE), speedup=_occupancy_gap_pct)
_SPARSE_STORES = Row("nv.sparse_stores", S.SPARSE_STORES, "global stores waste sector bytes",
    when=(When(_store_waste, Cmp.GE, SECTOR_WASTE_MIN_PCT), _material("store")),
    evidence=(Cite("global_store_bytes_per_sector", "<", SECTOR_BYTES_MAX),
              Fact("global_store_sector_waste", _store_waste, "%", "1 - bytes per sector / 32",
                   SECTOR_WASTE_MIN_PCT, ">="),
              Fact("global_store_sector_share", _store_share, "% of global sectors",
                   "global_store_sectors / all global sectors", TRAFFIC_SHARE_MIN_PCT, ">="),
              "global_store_sectors_per_request"),
    inference="stores write only part of each 32-byte sector: strided or scattered writes waste write bandwidth",
    actions=(A.COALESCING, A.TILING),
    confidence=Grade(When(_store_waste, Cmp.GE, 50.0), Confidence.HIGH, Confidence.MEDIUM), speedup=_store_waste)
_DIVERGENCE = Row("nv.thread_divergence", S.THREAD_DIVERGENCE, "< 24 of 32 threads active",
    when=(When(_THREADS_USED, Cmp.LT, ACTIVE_THREADS_MIN),),
    evidence=(Cite("active_threads_per_warp", "<", ACTIVE_THREADS_MIN),
              Cite("not_predicated_off_threads_per_warp", "<", ACTIVE_THREADS_MIN), "branch_uniform_pct"),
    inference="on average only {0:.1f} of 32 threads do useful work per instruction: divergent branches, "
              "predication (masked tails) or early-exiting threads",
    says=(_THREADS_USED,), actions=(A.DIVERGENCE, A.BLOCK_SIZE), speedup=_idle_lane_pct)
_PARTIAL_WARP = Row("nv.block_size_not_warp_multiple", S.BLOCK_SIZE_NOT_WARP_MULTIPLE, "block size % 32 != 0",
    when=(When("block_size_threads", Cmp.GT, 0.0), When(_last_warp_threads, Cmp.NE, 0.0)),
    evidence=(Cite("block_size_threads", "not a multiple of", WARP_SIZE),),
    inference="the last of {0} warps per block runs with only {1:g} of 32 threads",
    says=(_warps_per_block, _last_warp_threads),
    actions=(A.BLOCK_SIZE,), confidence=Confidence.HIGH, speedup=_masked_lane_pct)
_ATOMICS = ComputedRule("nv.atomics", S.ATOMICS, atomics, "hot global atomics")
_FP64_PIPE = Row("nv.fp64_use", S.FP64_USE, "FP64 pipe busy",
    when=(When("fp64_pipe_pct", Cmp.GE, PIPE_LOW_PCT),),
    evidence=("fp64_inst", Cite("fp64_pipe_pct", ">=", PIPE_LOW_PCT)),
    inference="the kernel executes FP64 instructions; unless the task is fp64 these come from accidental promotion "
              "(Python float constants, float64 inputs) and run at a fraction of the FP32 rate on most GPUs",
    actions=(A.PRECISION,))
_FP64_INSTRUCTIONS = _FP64_PIPE.otherwise(description="FP64 instructions executed",
    when=(When("fp64_inst", Cmp.NE, 0.0),), confidence=Confidence.LOW)
_NARROW_LOADS_MEMORY = Row("nv.narrow_global_loads", S.NARROW_GLOBAL_LOADS, "widest LDG < 128 bits, memory-heavy",
    when=(_narrow_loads, When(Largest(("dram_throughput_pct", "memory_throughput_pct")), Cmp.GE, SOL_LATENCY_PCT)),
    evidence=(_widest_load_fact, Cite("memory_throughput_pct", ">=", SOL_LATENCY_PCT), "dram_throughput_pct"),
    inference=_WIDER_LOADS % "memory-heavy", says=(_widest_load_bits,), actions=(A.VECTORIZED_ACCESS,))
_NARROW_LOADS_ISSUE = _NARROW_LOADS_MEMORY.otherwise(description="widest LDG < 128 bits, issue-heavy",
    when=(_narrow_loads, When("issue_active_pct", Cmp.GE, ISSUE_ACTIVE_LOW_PCT)),
    evidence=(_widest_load_fact, Cite("issue_active_pct", ">=", ISSUE_ACTIVE_LOW_PCT), "memory_throughput_pct"),
    inference=_WIDER_LOADS % "issue-heavy")
_NARROW_LOADS_LATENCY = _NARROW_LOADS_MEMORY.otherwise(description="widest LDG < 128 bits, waiting on memory",
    when=(_narrow_loads, _waits_on_memory),
    evidence=(_widest_load_fact, *stall_evidence("long_scoreboard"), "memory_throughput_pct"),
    inference=_WIDER_LOADS % "memory-latency-bound")
_ONCHIP = ComputedRule("nv.onchip_bandwidth_bound", S.ONCHIP_BANDWIDTH_BOUND, onchip_bandwidth_bound,
    "memory SOL >= 60%, DRAM <= half of it")
_LOW_ISSUE = Row("nv.low_issue_efficiency", S.LOW_ISSUE_EFFICIENCY, "issue active < 60%, mixed stalls",
    when=(When("issue_active_pct", Cmp.LT, ISSUE_ACTIVE_LOW_PCT), latency_regime, _no_dominant_stall),
    evidence=(Cite("issue_active_pct", "<", ISSUE_ACTIVE_LOW_PCT), "eligible_warps_per_scheduler",
              "active_warps_per_scheduler", "warp_cycles_per_issued_inst", _largest_stall_fact),
    inference="schedulers often have no eligible warp, and no single stall reason dominates",
    actions=(A.OCCUPANCY, A.NUM_WARPS, A.SOFTWARE_PIPELINING), confidence=Confidence.LOW)

NVIDIA_RULES = RuleTable(Citation.PROFILER_METRIC, (
    _FEWER_BLOCKS_THAN_SMS, _UNDER_ONE_WAVE,
    _MEMORY_ROOF,
    _DRAM_BANDWIDTH,
    _NO_TENSOR_CORES,
    _COMPUTE_BOUND,
    _SPILL_TRAFFIC, _STATIC_SPILLS,
    _LATENCY_NARROW_LOADS, _LATENCY,
    _UNCOALESCED,
    _BANK_CONFLICTS,
    _TAIL_EFFECT,
    _SHORT_SCOREBOARD,
    _MIO_THROTTLE,
    _BARRIER,
    _LG_THROTTLE,
    _REGISTER_LIMIT,
    _SHARED_MEMORY_LIMIT,
    _WARPS_LIMIT,
    _BLOCKS_LIMIT,
    _OCCUPANCY_GAP,
    _SPARSE_STORES,
    _DIVERGENCE,
    _PARTIAL_WARP,
    _ATOMICS,
    _FP64_PIPE, _FP64_INSTRUCTIONS,
    _NARROW_LOADS_MEMORY, _NARROW_LOADS_ISSUE, _NARROW_LOADS_LATENCY,
    _ONCHIP,
    _LOW_ISSUE,
))
# fmt: on
"""The NVIDIA rules, most important first (the order findings are listed in). ``nv.narrow_global_loads``:
the widest global load is under 128 bits in a kernel where load instructions cost: memory-heavy (memory
or DRAM throughput >= 60 %), issue-heavy (schedulers issue in >= 60 % of cycles, so every extra
instruction takes an issue slot; NVIDIA, "CUDA Pro Tip: Increase Performance with Vectorized Memory
Access": vector loads cut the instruction count for the same bytes), or latency-bound on memory
(long-scoreboard stalls dominate: the bytes in flight per warp, which hide DRAM latency by Little's law,
grow with the width of each load; V. Volkov, "Understanding Latency Hiding on GPUs", UC Berkeley, 2016)."""
