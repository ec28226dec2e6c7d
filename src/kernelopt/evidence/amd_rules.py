"""Evidence rules for AMD CDNA3/CDNA4 kernels: pure functions ``KernelEvidence -> Finding | None``.

Every rule reads only normalized metrics (names in :mod:`kernelopt.profiling.amd_reports`), ATT hotspots
and ISA facts of one kernel, and returns one ``evidence -> inference -> action`` finding or ``None``.
Each threshold is a :class:`Threshold` naming its source. Where AMD documents the metric but not a
cut-off, the source says so and the cut-off is kernelopt's own (with its reason): honest provenance,
not invented vendor guidance.

:data:`AMD_RULES` lists the rules in priority order; :func:`run_amd_rules` runs them all and
:func:`classify_amd` maps a kernel to the shared :class:`BottleneckType` taxonomy. This module is pure.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kernelopt.actions import ActionCategory as A
from kernelopt.evidence import rules
from kernelopt.evidence.model import BottleneckType, Confidence, EvidenceItem, Finding, Hotspot, KernelEvidence
from kernelopt.evidence.symptoms import Symptom
from kernelopt.evidence.thresholds import SOL_LATENCY_PCT, Threshold

Rule = Callable[[KernelEvidence], Finding | None]

# AMD metric sources name their file and formula, so an item cites the normalized metric by name.
_item = partial(rules.item, by_name=True)

_ROCPROF_COMPUTE = "ROCm Compute Profiler (rocprof-compute) documentation, gfx942 analysis configs"
_NCU_SOL = (
    "Nsight Compute SOLBottleneck rule: 'achieved compute throughput and/or memory bandwidth below 60.0% of "
    "peak typically indicate latency issues'; the same cut-off is applied to AMD pipes for one vendor-neutral "
    "taxonomy"
)


NARROW_LOAD_SHARE = Threshold(
    50.0,
    "%",
    "spec 'AMD Assembly Analysis' (many buffer_load_dword, few dwordx4 -> vectorization insufficient); "
    "128-bit per lane is the widest global load (AMD CDNA3 ISA guide, FLAT/MUBUF dwordx4); cut-off: kernelopt, "
    "most static loads narrower than 128 bit",
)
LDS_BANK_CONFLICT_PCT = Threshold(
    10.0,
    "%",
    f"metric: Bank Conflict Rate, % of active LDS cycles spent on bank conflicts ({_ROCPROF_COMPUTE}, "
    "'Local data share'); cut-off: kernelopt, one cycle in ten serialized",
)
SPILLS = Threshold(
    0.0,
    "",
    "LLVM AMDGPU code-object metadata .vgpr_spill_count/.sgpr_spill_count (AMDGPUUsage); any spill "
    "goes to scratch (off-chip) memory; cut-off: more than zero",
)
OCCUPANCY_LIMITER_PCT = Threshold(
    10.0,
    "%",
    f"metric: Insufficient SIMD VGPRs / CU LDS, % of cycles a workgroup could not be scheduled "
    f"({_ROCPROF_COMPUTE}, 'Workgroup manager - resource allocation'); cut-off: kernelopt",
)
LOW_OCCUPANCY_FRACTION = Threshold(
    0.5,
    "",
    "compiler '; Occupancy' (waves per SIMD, LLVM AMDGPU) against the machine's Max_Waves_Per_Simd "
    "(agent_info.csv); cut-off: kernelopt, half of the wave slots or fewer",
)
MIN_WORKGROUPS = Threshold(
    1024.0,
    "",
    "ROCm docs 'Optimizing Triton kernels' (MI300X): 'the grid should have at least 1024 thread blocks or workgroups'",
)
VALU_BUSY_PCT = Threshold(50.0, "%", f"metric: VALU Utilization ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt")
MFMA_IDLE_PCT = Threshold(10.0, "%", f"metric: MFMA Utilization ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt")
MIN_STATIC_FMA = Threshold(32.0, "", "kernelopt: enough static VALU FMA/dot instructions to be matrix work")
WAITCNT_SHARE_PCT = Threshold(
    30.0,
    "%",
    "rocprofv3 'Using thread trace' (stats CSV: Latency = stall + issue cycles per instruction); cut-off: "
    "kernelopt, waits hold 30% or more of the traced cycles",
)
BARRIER_SHARE_PCT = Threshold(20.0, "%", "rocprofv3 'Using thread trace' stats CSV; cut-off: kernelopt")
L2_HIT_RATE_PCT = Threshold(
    50.0,
    "%",
    f"metric: L2 Cache Hit Rate = 100*TCC_HIT/(TCC_HIT+TCC_MISS) ({_ROCPROF_COMPUTE}, SOL); cut-off: kernelopt, "
    "more misses than hits",
)
SOL_HIGH_PCT = Threshold(SOL_LATENCY_PCT.value, SOL_LATENCY_PCT.unit, _NCU_SOL)


def _hottest(k: KernelEvidence, pred: Callable[[Hotspot], bool]) -> Hotspot | None:
    return next((h for h in k.hotspots if pred(h)), None)


def _narrow_load(h: Hotspot) -> bool:
    text = (h.text or "").split(None, 1)[0] if h.text else ""
    if not text.startswith(("global_load", "buffer_load", "flat_load")):
        return False
    return not text.endswith(("dwordx4", "b128", "lds_dwordx4"))


# --------------------------------------------------------------------------------- rules


def narrow_global_loads(k: KernelEvidence) -> Finding | None:
    """Most static global loads are narrower than 128 bit per lane (ASM)."""
    share = rules.value(k, "global_load_narrow_pct")
    if share is None or share < NARROW_LOAD_SHARE.value:
        return None
    widest = rules.value(k, "global_load_max_bits")
    hot = _hottest(k, _narrow_load)
    evidence = [
        _item(k, "global_load_narrow_pct", threshold=NARROW_LOAD_SHARE, op=">="),
        _item(k, "global_load_insts"),
        _item(k, "global_load_max_bits"),
    ]
    if hot is not None:
        evidence.append(
            EvidenceItem(
                metric="att.latency_cycles", value=hot.samples, unit="cycles", source=f"ATT {hot.location}: {hot.text}"
            )
        )
    return Finding(
        rule_id="amd.narrow_global_loads",
        symptom=Symptom.NARROW_GLOBAL_LOADS.value,
        confidence=Confidence.HIGH if widest is not None and widest < 128 else Confidence.MEDIUM,
        evidence=evidence,
        inference="global memory is read with narrow per-lane loads (no dwordx4), so each wave issues several "
        "times the load instructions a 128-bit access needs",
        action_categories=[A.VECTORIZED_ACCESS, A.COALESCING],
        location=hot.location if hot else None,
    )


def lds_bank_conflicts(k: KernelEvidence) -> Finding | None:
    """LDS bank conflicts take a significant share of LDS cycles (PMC)."""
    rate = rules.value(k, "lds_bank_conflict_pct")
    if rate is None or rate < LDS_BANK_CONFLICT_PCT.value:
        return None
    evidence = [
        _item(k, "lds_bank_conflict_pct", threshold=LDS_BANK_CONFLICT_PCT, op=">="),
        _item(k, "lds_bank_conflict_cycles"),
        _item(k, "lds_insts"),
    ]
    hot = _hottest(k, lambda h: h.dominant_stall == "wait_lgkmcnt")
    if hot is not None:
        evidence.append(
            EvidenceItem(
                metric="att.latency_cycles", value=hot.samples, unit="cycles", source=f"ATT {hot.location}: {hot.text}"
            )
        )
    return Finding(
        rule_id="amd.lds_bank_conflicts",
        symptom=Symptom.LDS_BANK_CONFLICTS.value,
        confidence=Confidence.HIGH,
        evidence=evidence,
        inference="LDS accesses of one wave hit the same banks and are serialized",
        action_categories=[A.LDS_LAYOUT, A.SMEM_SWIZZLE_PADDING],
        location=hot.location if hot else None,
    )


def scratch_spills(k: KernelEvidence) -> Finding | None:
    """Registers spill to scratch, or the kernel keeps arrays in scratch (ASM / dispatch record)."""
    vgpr = rules.value(k, "vgpr_spill_count") or 0.0
    sgpr = rules.value(k, "sgpr_spill_count") or 0.0
    spill_ops = rules.value(k, "spill_insts") or 0.0
    scratch_ops = rules.value(k, "scratch_insts") or 0.0
    scratch_bytes = rules.value(k, "scratch_bytes") or rules.value(k, "asm_scratch_bytes") or 0.0
    if vgpr + sgpr + spill_ops > SPILLS.value:
        return Finding(
            rule_id="amd.scratch_spills",
            symptom=Symptom.SCRATCH_SPILLS.value,
            confidence=Confidence.HIGH,
            evidence=[
                _item(k, "vgpr_spill_count", threshold=SPILLS, op=">"),
                _item(k, "sgpr_spill_count"),
                _item(k, "spill_insts"),
                _item(k, "vgprs_total"),
                _item(k, "scratch_bytes" if "scratch_bytes" in k.metrics else "asm_scratch_bytes"),
            ],
            inference="the register allocator ran out of VGPRs and spills live values to scratch memory, "
            "adding off-chip traffic and wait time",
            action_categories=[A.REGISTER_PRESSURE, A.TILING, A.BLOCK_SIZE],
        )
    if scratch_ops > 0 or scratch_bytes > 0:
        return Finding(
            rule_id="amd.scratch_spills",
            symptom=Symptom.SCRATCH_SPILLS.value,
            confidence=Confidence.MEDIUM,
            evidence=[
                _item(k, "scratch_insts", threshold=SPILLS, op=">"),
                _item(k, "scratch_bytes" if "scratch_bytes" in k.metrics else "asm_scratch_bytes", condition="> 0"),
                _item(k, "vgpr_spill_count"),
            ],
            inference="the kernel uses scratch memory without register spills: a private array indexed "
            "at run time lives in scratch",
            action_categories=[A.REGISTER_PRESSURE],
        )
    return None


def _lds_waves_per_simd(k: KernelEvidence) -> float | None:
    """Waves per SIMD the LDS allocation allows (workgroups per CU by LDS x waves per workgroup / SIMDs)."""
    lds_wg = rules.value(k, "lds_bytes_per_workgroup")
    lds_cu = rules.value(k, "lds_bytes_per_cu")
    wg = rules.value(k, "workgroup_size")
    wave = rules.value(k, "wave_size")
    simds = rules.value(k, "simds_per_cu")
    if not (lds_wg and lds_cu and wg and wave and simds):
        return None
    per_cu = lds_cu // lds_wg
    return per_cu * (-(-wg // wave)) / simds


def _low_occupancy(k: KernelEvidence) -> tuple[float, float] | None:
    occ = rules.value(k, "occupancy_waves_per_simd")
    max_w = rules.value(k, "max_waves_per_simd")
    if occ is None or not max_w or occ > LOW_OCCUPANCY_FRACTION.value * max_w:
        return None
    return occ, max_w


def occupancy_limited_vgprs(k: KernelEvidence) -> Finding | None:
    """Waves cannot launch for lack of VGPRs (PMC), or the compiler's occupancy is low and LDS is not
    the limiter (ASM + machine description)."""
    stalled = rules.value(k, "insufficient_vgprs_pct")
    if stalled is not None and stalled >= OCCUPANCY_LIMITER_PCT.value:
        return Finding(
            rule_id="amd.occupancy_limited_vgprs",
            symptom=Symptom.OCCUPANCY_LIMITED_VGPRS.value,
            confidence=Confidence.HIGH,
            evidence=[
                _item(k, "insufficient_vgprs_pct", threshold=OCCUPANCY_LIMITER_PCT, op=">="),
                _item(k, "vgprs_total"),
                _item(k, "vgprs_architected"),
                _item(k, "vgprs_accumulation"),
            ],
            inference="workgroups wait for free VGPRs: register use per wave caps the waves a SIMD holds",
            action_categories=[A.REGISTER_PRESSURE, A.WAVE_OCCUPANCY, A.NUM_WARPS],
        )
    low = _low_occupancy(k)
    if low is None:
        return None
    lds_waves = _lds_waves_per_simd(k)
    if lds_waves is not None and lds_waves <= low[0]:
        return None
    return Finding(
        rule_id="amd.occupancy_limited_vgprs",
        symptom=Symptom.OCCUPANCY_LIMITED_VGPRS.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            _item(
                k,
                "occupancy_waves_per_simd",
                condition=f"<= {LOW_OCCUPANCY_FRACTION.value:g} x max_waves_per_simd",
                condition_source=LOW_OCCUPANCY_FRACTION.source,
            ),
            _item(k, "max_waves_per_simd"),
            _item(k, "vgprs_total"),
            _item(k, "lds_bytes_per_workgroup"),
        ],
        inference=f"the compiler fits only {low[0]:g} of {low[1]:g} waves per SIMD and LDS does not explain it: "
        "VGPR/AGPR use per wave is the limiter",
        action_categories=[A.REGISTER_PRESSURE, A.WAVE_OCCUPANCY, A.BLOCK_SIZE],
    )


def occupancy_limited_lds(k: KernelEvidence) -> Finding | None:
    """Workgroups cannot launch for lack of LDS (PMC), or LDS per workgroup caps waves per SIMD (ASM)."""
    stalled = rules.value(k, "insufficient_lds_pct")
    if stalled is not None and stalled >= OCCUPANCY_LIMITER_PCT.value:
        return Finding(
            rule_id="amd.occupancy_limited_lds",
            symptom=Symptom.OCCUPANCY_LIMITED_LDS.value,
            confidence=Confidence.HIGH,
            evidence=[
                _item(k, "insufficient_lds_pct", threshold=OCCUPANCY_LIMITER_PCT, op=">="),
                _item(k, "lds_bytes_per_workgroup"),
                _item(k, "lds_bytes_per_cu"),
            ],
            inference="workgroups wait for free LDS: LDS per workgroup caps the workgroups a CU holds",
            action_categories=[A.WAVE_OCCUPANCY, A.TILING, A.BLOCK_SIZE],
        )
    low = _low_occupancy(k)
    lds_waves = _lds_waves_per_simd(k)
    if low is None or lds_waves is None or lds_waves > low[0]:
        return None
    return Finding(
        rule_id="amd.occupancy_limited_lds",
        symptom=Symptom.OCCUPANCY_LIMITED_LDS.value,
        confidence=Confidence.MEDIUM,
        evidence=[
            _item(
                k,
                "occupancy_waves_per_simd",
                condition=f"<= {LOW_OCCUPANCY_FRACTION.value:g} x max",
                condition_source=LOW_OCCUPANCY_FRACTION.source,
            ),
            _item(k, "lds_bytes_per_workgroup"),
            _item(k, "lds_bytes_per_cu"),
            _item(k, "workgroup_size"),
        ],
        inference=f"LDS per workgroup allows only {lds_waves:g} waves per SIMD, which is the occupancy the kernel gets",
        action_categories=[A.WAVE_OCCUPANCY, A.TILING],
    )


def occupancy_limited_waves(k: KernelEvidence) -> Finding | None:
    """The grid launches too few workgroups to occupy the GPU."""
    wgs = rules.value(k, "workgroups")
    if wgs is None:
        return None
    cus = rules.value(k, "cu_count")
    if cus and wgs < cus:
        return Finding(
            rule_id="amd.occupancy_limited_waves",
            symptom=Symptom.SMALL_GRID.value,
            confidence=Confidence.HIGH,
            evidence=[
                _item(k, "workgroups", condition="< cu_count", condition_source="agent_info.csv Cu_Count"),
                _item(k, "cu_count"),
                _item(k, "grid_size"),
            ],
            inference=f"{wgs:g} workgroups leave {cus - wgs:g} of {cus:g} compute units idle",
            action_categories=[A.BLOCK_SIZE, A.SPLIT_K, A.PERSISTENT_KERNEL],
        )
    if wgs < MIN_WORKGROUPS.value:
        return Finding(
            rule_id="amd.occupancy_limited_waves",
            symptom=Symptom.SMALL_GRID.value,
            confidence=Confidence.MEDIUM,
            evidence=[
                _item(k, "workgroups", threshold=MIN_WORKGROUPS, op="<"),
                _item(k, "cu_count"),
            ],
            inference="too few workgroups to give every CU several waves to switch between",
            action_categories=[A.BLOCK_SIZE, A.SPLIT_K],
        )
    return None


def mfma_underuse(k: KernelEvidence) -> Finding | None:
    """Matrix work runs on the VALU: VALU busy, MFMA idle (PMC), or FMA-heavy code with no MFMA (ASM)."""
    valu = rules.value(k, "valu_busy_pct")
    mfma = rules.value(k, "mfma_busy_pct")
    if valu is not None and valu >= VALU_BUSY_PCT.value and (mfma is None or mfma < MFMA_IDLE_PCT.value):
        return Finding(
            rule_id="amd.mfma_underuse",
            symptom=Symptom.MFMA_UNDERUSE.value,
            confidence=Confidence.HIGH if (rules.value(k, "valu_fma_insts") or 0) > 0 else Confidence.MEDIUM,
            evidence=[
                _item(k, "valu_busy_pct", threshold=VALU_BUSY_PCT, op=">="),
                _item(k, "mfma_busy_pct", threshold=MFMA_IDLE_PCT, op="<"),
                _item(k, "valu_fma_insts"),
                _item(k, "mfma_insts"),
            ],
            inference="the vector ALU is the busy pipe while the matrix cores idle: multiply-accumulate work "
            "is done with VALU FMAs",
            action_categories=[A.MFMA_USE, A.PRECISION],
        )
    static_mfma = rules.value(k, "mfma_static_insts")
    static_fma = rules.value(k, "valu_fma_static_insts") or 0.0
    if static_mfma == 0 and static_fma >= MIN_STATIC_FMA.value and (rules.value(k, "lds_read_insts") or 0) > 0:
        return Finding(
            rule_id="amd.mfma_underuse",
            symptom=Symptom.MFMA_UNDERUSE.value,
            confidence=Confidence.LOW,
            evidence=[
                _item(k, "valu_fma_static_insts", threshold=MIN_STATIC_FMA, op=">="),
                _item(k, "mfma_static_insts", condition="== 0"),
                _item(k, "lds_read_insts", condition="> 0"),
            ],
            inference="the kernel stages tiles in LDS and multiplies them with VALU FMAs, with no MFMA "
            "instruction: matrix work without the matrix cores",
            action_categories=[A.MFMA_USE],
        )
    return None


def waitcnt_stalls(k: KernelEvidence) -> Finding | None:
    """Traced cycles concentrate on ``s_waitcnt`` instructions (ATT)."""
    share = rules.value(k, "att_waitcnt_latency_pct")
    if share is None or share < WAITCNT_SHARE_PCT.value:
        return None
    vm = rules.value(k, "att_vmcnt_wait_pct") or 0.0
    lgkm = rules.value(k, "att_lgkmcnt_wait_pct") or 0.0
    hot = _hottest(k, lambda h: (h.dominant_stall or "").startswith("wait_"))
    evidence = [
        _item(k, "att_waitcnt_latency_pct", threshold=WAITCNT_SHARE_PCT, op=">="),
        _item(k, "att_vmcnt_wait_pct"),
        _item(k, "att_lgkmcnt_wait_pct"),
    ]
    if hot is not None:
        evidence.append(
            EvidenceItem(
                metric="att.latency_cycles",
                value=hot.samples,
                unit="cycles",
                source=f"ATT {hot.location}: {hot.text} ({hot.share_pct or 0:.1f}% of traced cycles)",
            )
        )
    if vm >= lgkm:
        inference = "waves sit in s_waitcnt vmcnt: global-memory latency is exposed, not hidden by independent work"
        actions = [A.SOFTWARE_PIPELINING, A.VECTORIZED_ACCESS, A.WAVE_OCCUPANCY]
    else:
        inference = "waves sit in s_waitcnt lgkmcnt: LDS (or scalar-load) latency is exposed between write and read"
        actions = [A.SOFTWARE_PIPELINING, A.LDS_LAYOUT]
    return Finding(
        rule_id="amd.waitcnt_stalls",
        symptom=Symptom.WAITCNT_STALLS.value,
        confidence=Confidence.HIGH,
        evidence=evidence,
        inference=inference,
        action_categories=actions,
        location=hot.location if hot else None,
    )


def barrier_stalls(k: KernelEvidence) -> Finding | None:
    """Traced cycles concentrate on ``s_barrier`` (ATT)."""
    share = rules.value(k, "att_barrier_latency_pct")
    if share is None or share < BARRIER_SHARE_PCT.value:
        return None
    hot = _hottest(k, lambda h: h.dominant_stall == "barrier")
    return Finding(
        rule_id="amd.barrier_stalls",
        symptom=Symptom.BARRIER_STALLS.value,
        confidence=Confidence.MEDIUM,
        evidence=[_item(k, "att_barrier_latency_pct", threshold=BARRIER_SHARE_PCT, op=">=")],
        inference="waves of a workgroup wait for each other at s_barrier",
        action_categories=[A.SOFTWARE_PIPELINING, A.NUM_WARPS],
        location=hot.location if hot else None,
    )


def low_l2_hit_rate(k: KernelEvidence) -> Finding | None:
    """Most L2 requests miss (PMC). Low confidence: a pure stream has no reuse to recover."""
    rate = rules.value(k, "l2_hit_rate_pct")
    if rate is None or rate >= L2_HIT_RATE_PCT.value:
        return None
    return Finding(
        rule_id="amd.low_l2_hit_rate",
        symptom=Symptom.LOW_L2_HIT_RATE.value,
        confidence=Confidence.LOW,
        evidence=[
            _item(k, "l2_hit_rate_pct", threshold=L2_HIT_RATE_PCT, op="<"),
            _item(k, "l2_requests"),
            _item(k, "hbm_read_bytes"),
        ],
        inference="most L2 requests go to HBM/MALL; if tiles are re-read by other workgroups, their order "
        "does not keep them in L2",
        action_categories=[A.L2_RASTERIZATION, A.TILING],
    )


def dram_bandwidth_bound(k: KernelEvidence) -> Finding | None:
    """HBM traffic runs near the spec-sheet bandwidth (PMC + duration + spec sheet)."""
    pct = rules.value(k, "dram_throughput_pct")
    if pct is None or pct < SOL_HIGH_PCT.value:
        return None
    return Finding(
        rule_id="amd.dram_bandwidth_bound",
        symptom=Symptom.DRAM_BANDWIDTH_BOUND.value,
        confidence=Confidence.HIGH,
        evidence=[
            _item(k, "dram_throughput_pct", threshold=SOL_HIGH_PCT, op=">="),
            _item(k, "dram_gbps"),
            _item(k, "duration_us"),
        ],
        inference="the kernel moves bytes near the HBM peak: fewer bytes, not faster instructions, make it faster",
        action_categories=[A.REDUCE_BYTES, A.FUSION, A.PRECISION],
    )


AMD_RULES: tuple[Rule, ...] = (
    scratch_spills,
    dram_bandwidth_bound,
    mfma_underuse,
    lds_bank_conflicts,
    occupancy_limited_vgprs,
    occupancy_limited_lds,
    occupancy_limited_waves,
    waitcnt_stalls,
    narrow_global_loads,
    barrier_stalls,
    low_l2_hit_rate,
)
"""The AMD rules, most important first (the order findings are listed in)."""


def _framework_rule(check: Rule, symptom: Symptom) -> rules.Rule:
    return rules.Rule(
        id=f"amd.{check.__name__}",
        symptom=symptom,
        check=check,
        description=(check.__doc__ or "").strip().splitlines()[0] if check.__doc__ else "",
    )


AMD_RULE_SET: tuple[rules.Rule, ...] = tuple(
    _framework_rule(check, symptom)
    for check, symptom in (
        (scratch_spills, Symptom.SCRATCH_SPILLS),
        (dram_bandwidth_bound, Symptom.DRAM_BANDWIDTH_BOUND),
        (mfma_underuse, Symptom.MFMA_UNDERUSE),
        (lds_bank_conflicts, Symptom.LDS_BANK_CONFLICTS),
        (occupancy_limited_vgprs, Symptom.OCCUPANCY_LIMITED_VGPRS),
        (occupancy_limited_lds, Symptom.OCCUPANCY_LIMITED_LDS),
        (occupancy_limited_waves, Symptom.SMALL_GRID),
        (waitcnt_stalls, Symptom.WAITCNT_STALLS),
        (narrow_global_loads, Symptom.NARROW_GLOBAL_LOADS),
        (barrier_stalls, Symptom.BARRIER_STALLS),
        (low_l2_hit_rate, Symptom.LOW_L2_HIT_RATE),
    )
)
"""The AMD rules as :class:`kernelopt.evidence.rules.Rule` objects of the shared engine (same order)."""


def run_amd_rules(kernel: KernelEvidence) -> list[Finding]:
    """Every AMD rule that fires for ``kernel``, through the shared engine (:func:`rules.run_rules`)."""
    return rules.run_rules(kernel, AMD_RULE_SET)


def classify_amd(kernel: KernelEvidence) -> BottleneckType:
    """The bottleneck class from AMD metrics (Nsight Compute's SOL taxonomy, 60 % cut-off).

    memory-bound: HBM throughput >= 60 % of the spec sheet; compute-bound: VALU or MFMA busy >= 60 %
    (the larger of the two wins when both are high); launch/occupancy-bound: fewer workgroups than CUs,
    or a resource-allocation stall (VGPR/LDS) >= 10 % with no pipe high; latency-bound: pipes and
    memory measured and all below 60 %, or ATT wait counts >= 30 % of traced cycles; else unknown.
    """
    mem = kernel.metric("dram_throughput_pct")
    comp = max(
        (v for v in (kernel.metric("valu_busy_pct"), kernel.metric("mfma_busy_pct")) if v is not None), default=None
    )
    high = SOL_HIGH_PCT.value
    if mem is not None and mem >= high and (comp is None or mem >= comp):
        return BottleneckType.MEMORY_BOUND
    if comp is not None and comp >= high:
        return BottleneckType.COMPUTE_BOUND
    wgs, cus = kernel.metric("workgroups"), kernel.metric("cu_count")
    if wgs is not None and cus and wgs < cus:
        return BottleneckType.LAUNCH_OCCUPANCY_BOUND
    limiter = max(
        (v for v in (kernel.metric("insufficient_vgprs_pct"), kernel.metric("insufficient_lds_pct")) if v is not None),
        default=None,
    )
    if limiter is not None and limiter >= OCCUPANCY_LIMITER_PCT.value:
        return BottleneckType.LAUNCH_OCCUPANCY_BOUND
    waits = kernel.metric("att_waitcnt_latency_pct")
    if (mem is not None and comp is not None) or (waits is not None and waits >= WAITCNT_SHARE_PCT.value):
        return BottleneckType.LATENCY_BOUND
    return BottleneckType.UNKNOWN
