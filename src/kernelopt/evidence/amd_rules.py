"""Evidence rules for AMD CDNA3/CDNA4 kernels: one table, read by :mod:`kernelopt.evidence.rules`.

Every rule reads only normalized metrics (names in :mod:`kernelopt.profiling.amd_reports`), ATT hotspots
and ISA facts of one kernel, and gives one ``evidence -> inference -> action`` finding or none. Each
threshold is an ``AMD_*`` :class:`~kernelopt.evidence.thresholds.Threshold` naming its source.

:data:`AMD_RULES` lists the rules in priority order (a rule with two rows is one rule with two branches,
the first that fires speaks); :func:`run_amd_rules` runs them and :func:`classify_amd` maps a kernel to
the shared :class:`BottleneckType` taxonomy. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from kernelopt.actions import ActionCategory as A
from kernelopt.evidence.model import BottleneckType, Confidence, EvidenceItem, Finding, Hotspot, KernelEvidence
from kernelopt.evidence.rules import (
    Citation,
    Cite,
    Cmp,
    Diff,
    EvidenceFn,
    Grade,
    Row,
    RuleTable,
    Total,
    When,
    run_rules,
)
from kernelopt.evidence.symptoms import Symptom as S
from kernelopt.evidence.thresholds import (
    AMD_BARRIER_SHARE_PCT,
    AMD_L2_HIT_RATE_PCT,
    AMD_LDS_BANK_CONFLICT_PCT,
    AMD_LOW_OCCUPANCY_FRACTION,
    AMD_MFMA_IDLE_PCT,
    AMD_MIN_STATIC_FMA,
    AMD_MIN_WORKGROUPS,
    AMD_NARROW_LOAD_SHARE_PCT,
    AMD_OCCUPANCY_LIMITER_PCT,
    AMD_SOL_HIGH_PCT,
    AMD_SPILLS,
    AMD_VALU_BUSY_PCT,
    AMD_WAITCNT_SHARE_PCT,
)

HotspotTest = Callable[[Hotspot], bool]

# -- hotspots, quantities and predicates the table names ------------------------------------------


def _hottest(k: KernelEvidence, test: HotspotTest) -> Hotspot | None:
    return next((h for h in k.hotspots if test(h)), None)


def _narrow_load(h: Hotspot) -> bool:
    text = (h.text or "").split(None, 1)[0] if h.text else ""
    if not text.startswith(("global_load", "buffer_load", "flat_load")):
        return False
    return not text.endswith(("dwordx4", "b128", "lds_dwordx4"))


def _stalled_on(reason: str) -> HotspotTest:
    return lambda h: h.dominant_stall == reason


def _waiting(h: Hotspot) -> bool:
    return (h.dominant_stall or "").startswith("wait_")


def hottest_location(test: HotspotTest) -> Callable[[KernelEvidence], str | None]:
    """The location of the hottest ATT instruction that passes ``test``."""

    def location(k: KernelEvidence) -> str | None:
        hot = _hottest(k, test)
        return hot.location if hot else None

    return location


def att_hotspot(test: HotspotTest, *, with_share: bool = False) -> EvidenceFn:
    """The hottest ATT instruction that passes ``test`` as an evidence item (none when there is none)."""

    def cite(k: KernelEvidence) -> list[EvidenceItem]:
        hot = _hottest(k, test)
        if hot is None:
            return []
        share = f" ({hot.share_pct or 0:.1f}% of traced cycles)" if with_share else ""
        source = f"ATT {hot.location}: {hot.text}{share}"
        return [EvidenceItem(metric="att.latency_cycles", value=hot.samples, unit="cycles", source=source)]

    return cite


def _lds_waves_per_simd(k: KernelEvidence) -> float | None:
    """Waves per SIMD the LDS allocation allows (workgroups per CU by LDS x waves per workgroup / SIMDs)."""
    lds_wg = k.metric("lds_bytes_per_workgroup")
    lds_cu = k.metric("lds_bytes_per_cu")
    wg = k.metric("workgroup_size")
    wave = k.metric("wave_size")
    simds = k.metric("simds_per_cu")
    if not (lds_wg and lds_cu and wg and wave and simds):
        return None
    per_cu = lds_cu // lds_wg
    return per_cu * (-(-wg // wave)) / simds


def _low_occupancy(k: KernelEvidence) -> float | None:
    """The compiler's waves per SIMD when they are half the wave slots or fewer, else ``None``."""
    occ = k.metric("occupancy_waves_per_simd")
    max_w = k.metric("max_waves_per_simd")
    if occ is None or not max_w or occ > AMD_LOW_OCCUPANCY_FRACTION.value * max_w:
        return None
    return occ


def _vgprs_limit_occupancy(k: KernelEvidence) -> bool:
    """Occupancy is low and LDS does not explain it."""
    occ, lds_waves = _low_occupancy(k), _lds_waves_per_simd(k)
    return occ is not None and (lds_waves is None or lds_waves > occ)


def _lds_limits_occupancy(k: KernelEvidence) -> bool:
    """Occupancy is low and LDS per workgroup allows no more waves than that."""
    occ, lds_waves = _low_occupancy(k), _lds_waves_per_simd(k)
    return occ is not None and lds_waves is not None and lds_waves <= occ


def _scratch_use(k: KernelEvidence) -> float:
    """Scratch instructions or scratch bytes (either > 0 means scratch is used)."""
    scratch_bytes = k.metric("scratch_bytes") or k.metric("asm_scratch_bytes") or 0.0
    return max(k.metric("scratch_insts") or 0.0, scratch_bytes)


def _vmcnt_lead_pct(k: KernelEvidence) -> float:
    """vmcnt waits minus lgkmcnt waits (percent of traced cycles; not measured counts as 0)."""
    return (k.metric("att_vmcnt_wait_pct") or 0.0) - (k.metric("att_lgkmcnt_wait_pct") or 0.0)


# -- the table ------------------------------------------------------------------------------------
# One rule per block: id, symptom, description; when (every test holds); evidence; inference; actions and
# the rest. ``X.otherwise(...)`` is a further branch of rule X, tried when X does not fire.

_SPILLED = Total(("vgpr_spill_count", "sgpr_spill_count", "spill_insts"))
_SCRATCH_BYTES = Cite("scratch_bytes", fallback="asm_scratch_bytes")
_HALF_THE_SLOTS = f"<= {AMD_LOW_OCCUPANCY_FRACTION.value:g} x max_waves_per_simd"
_HALF_MAX = f"<= {AMD_LOW_OCCUPANCY_FRACTION.value:g} x max"

# fmt: off
_SCRATCH_SPILLS = Row("amd.scratch_spills", S.SCRATCH_SPILLS, "registers spill to scratch (ASM / dispatch record)",
    when=(When(_SPILLED, Cmp.GT, AMD_SPILLS),),
    evidence=(Cite("vgpr_spill_count", ">", AMD_SPILLS), "sgpr_spill_count", "spill_insts", "vgprs_total",
              _SCRATCH_BYTES),
    inference="the register allocator ran out of VGPRs and spills live values to scratch memory, "
              "adding off-chip traffic and wait time",
    actions=(A.REGISTER_PRESSURE, A.TILING, A.BLOCK_SIZE), confidence=Confidence.HIGH)
_SCRATCH_ARRAY = _SCRATCH_SPILLS.otherwise(description="scratch used without spills: a private array in scratch",
    when=(When(_scratch_use, Cmp.GT, 0.0),),
    evidence=(Cite("scratch_insts", ">", AMD_SPILLS), Cite("scratch_bytes", "> 0", fallback="asm_scratch_bytes"),
              "vgpr_spill_count"),
    inference="the kernel uses scratch memory without register spills: a private array indexed "
              "at run time lives in scratch",
    actions=(A.REGISTER_PRESSURE,), confidence=Confidence.MEDIUM)
_DRAM_BANDWIDTH = Row("amd.dram_bandwidth_bound", S.DRAM_BANDWIDTH_BOUND, "HBM near the spec-sheet bandwidth (PMC)",
    when=(When("dram_throughput_pct", Cmp.GE, AMD_SOL_HIGH_PCT),),
    evidence=(Cite("dram_throughput_pct", ">=", AMD_SOL_HIGH_PCT), "dram_gbps", "duration_us"),
    inference="the kernel moves bytes near the HBM peak: fewer bytes, not faster instructions, make it faster",
    actions=(A.REDUCE_BYTES, A.FUSION, A.PRECISION), confidence=Confidence.HIGH)
_MFMA_IDLE = Row("amd.mfma_underuse", S.MFMA_UNDERUSE, "matrix work on the VALU: VALU busy, MFMA idle (PMC)",
    when=(When("valu_busy_pct", Cmp.GE, AMD_VALU_BUSY_PCT),
          When("mfma_busy_pct", Cmp.LT, AMD_MFMA_IDLE_PCT, missing=True)),
    evidence=(Cite("valu_busy_pct", ">=", AMD_VALU_BUSY_PCT), Cite("mfma_busy_pct", "<", AMD_MFMA_IDLE_PCT),
              "valu_fma_insts", "mfma_insts"),
    inference="the vector ALU is the busy pipe while the matrix cores idle: multiply-accumulate work "
              "is done with VALU FMAs",
    actions=(A.MFMA_USE, A.PRECISION),
    confidence=Grade(When("valu_fma_insts", Cmp.GT, 0.0), Confidence.HIGH, Confidence.MEDIUM))
_NO_MFMA = _MFMA_IDLE.otherwise(description="FMA-heavy code with LDS tiles and no MFMA (ASM)",
    when=(When("mfma_static_insts", Cmp.EQ, 0.0), When("valu_fma_static_insts", Cmp.GE, AMD_MIN_STATIC_FMA),
          When("lds_read_insts", Cmp.GT, 0.0)),
    evidence=(Cite("valu_fma_static_insts", ">=", AMD_MIN_STATIC_FMA), Cite("mfma_static_insts", "== 0"),
              Cite("lds_read_insts", "> 0")),
    inference="the kernel stages tiles in LDS and multiplies them with VALU FMAs, with no MFMA "
              "instruction: matrix work without the matrix cores",
    actions=(A.MFMA_USE,), confidence=Confidence.LOW)
_LDS_BANK_CONFLICTS = Row("amd.lds_bank_conflicts", S.LDS_BANK_CONFLICTS, "LDS bank conflicts take LDS cycles (PMC)",
    when=(When("lds_bank_conflict_pct", Cmp.GE, AMD_LDS_BANK_CONFLICT_PCT),),
    evidence=(Cite("lds_bank_conflict_pct", ">=", AMD_LDS_BANK_CONFLICT_PCT), "lds_bank_conflict_cycles",
              "lds_insts", att_hotspot(_stalled_on("wait_lgkmcnt"))),
    inference="LDS accesses of one wave hit the same banks and are serialized",
    actions=(A.LDS_LAYOUT, A.SMEM_SWIZZLE_PADDING), confidence=Confidence.HIGH,
    location=hottest_location(_stalled_on("wait_lgkmcnt")))
_VGPR_WAIT = Row("amd.occupancy_limited_vgprs", S.OCCUPANCY_LIMITED_VGPRS, "waves wait for VGPRs (PMC)",
    when=(When("insufficient_vgprs_pct", Cmp.GE, AMD_OCCUPANCY_LIMITER_PCT),),
    evidence=(Cite("insufficient_vgprs_pct", ">=", AMD_OCCUPANCY_LIMITER_PCT),
              "vgprs_total", "vgprs_architected", "vgprs_accumulation"),
    inference="workgroups wait for free VGPRs: register use per wave caps the waves a SIMD holds",
    actions=(A.REGISTER_PRESSURE, A.WAVE_OCCUPANCY, A.NUM_WARPS), confidence=Confidence.HIGH)
_VGPR_OCCUPANCY = _VGPR_WAIT.otherwise(description="low compiler occupancy that LDS does not explain (ASM)",
    when=(_vgprs_limit_occupancy,),
    evidence=(Cite("occupancy_waves_per_simd", _HALF_THE_SLOTS, source=AMD_LOW_OCCUPANCY_FRACTION.source),
              "max_waves_per_simd", "vgprs_total", "lds_bytes_per_workgroup"),
    inference="the compiler fits only {0:g} of {1:g} waves per SIMD and LDS does not explain it: "
              "VGPR/AGPR use per wave is the limiter",
    says=("occupancy_waves_per_simd", "max_waves_per_simd"),
    actions=(A.REGISTER_PRESSURE, A.WAVE_OCCUPANCY, A.BLOCK_SIZE), confidence=Confidence.MEDIUM)
_LDS_WAIT = Row("amd.occupancy_limited_lds", S.OCCUPANCY_LIMITED_LDS, "workgroups wait for LDS (PMC)",
    when=(When("insufficient_lds_pct", Cmp.GE, AMD_OCCUPANCY_LIMITER_PCT),),
    evidence=(Cite("insufficient_lds_pct", ">=", AMD_OCCUPANCY_LIMITER_PCT),
              "lds_bytes_per_workgroup", "lds_bytes_per_cu"),
    inference="workgroups wait for free LDS: LDS per workgroup caps the workgroups a CU holds",
    actions=(A.WAVE_OCCUPANCY, A.TILING, A.BLOCK_SIZE), confidence=Confidence.HIGH)
_LDS_OCCUPANCY = _LDS_WAIT.otherwise(description="LDS per workgroup caps waves per SIMD (ASM)",
    when=(_lds_limits_occupancy,),
    evidence=(Cite("occupancy_waves_per_simd", _HALF_MAX, source=AMD_LOW_OCCUPANCY_FRACTION.source),
              "lds_bytes_per_workgroup", "lds_bytes_per_cu", "workgroup_size"),
    inference="LDS per workgroup allows only {0:g} waves per SIMD, which is the occupancy the kernel gets",
    says=(_lds_waves_per_simd,),
    actions=(A.WAVE_OCCUPANCY, A.TILING), confidence=Confidence.MEDIUM)
_FEWER_WORKGROUPS_THAN_CUS = Row("amd.occupancy_limited_waves", S.SMALL_GRID, "fewer workgroups than CUs",
    when=(When("cu_count", Cmp.NE, 0.0), When(Diff("workgroups", "cu_count"), Cmp.LT, 0.0)),
    evidence=(Cite("workgroups", "< cu_count", source="agent_info.csv Cu_Count"), "cu_count", "grid_size"),
    inference="{0:g} workgroups leave {1:g} of {2:g} compute units idle",
    says=("workgroups", Diff("cu_count", "workgroups"), "cu_count"),
    actions=(A.BLOCK_SIZE, A.SPLIT_K, A.PERSISTENT_KERNEL), confidence=Confidence.HIGH)
_FEW_WORKGROUPS = _FEWER_WORKGROUPS_THAN_CUS.otherwise(description="fewer than 1024 workgroups",
    when=(When("workgroups", Cmp.LT, AMD_MIN_WORKGROUPS),),
    evidence=(Cite("workgroups", "<", AMD_MIN_WORKGROUPS), "cu_count"),
    inference="too few workgroups to give every CU several waves to switch between", says=(),
    actions=(A.BLOCK_SIZE, A.SPLIT_K), confidence=Confidence.MEDIUM)
_VMCNT_WAITS = Row("amd.waitcnt_stalls", S.WAITCNT_STALLS, "traced cycles concentrate on s_waitcnt vmcnt (ATT)",
    when=(When("att_waitcnt_latency_pct", Cmp.GE, AMD_WAITCNT_SHARE_PCT), When(_vmcnt_lead_pct, Cmp.GE, 0.0)),
    evidence=(Cite("att_waitcnt_latency_pct", ">=", AMD_WAITCNT_SHARE_PCT), "att_vmcnt_wait_pct",
              "att_lgkmcnt_wait_pct", att_hotspot(_waiting, with_share=True)),
    inference="waves sit in s_waitcnt vmcnt: global-memory latency is exposed, not hidden by independent work",
    actions=(A.SOFTWARE_PIPELINING, A.VECTORIZED_ACCESS, A.WAVE_OCCUPANCY), confidence=Confidence.HIGH,
    location=hottest_location(_waiting))
_LGKMCNT_WAITS = _VMCNT_WAITS.otherwise(description="traced cycles concentrate on s_waitcnt lgkmcnt (ATT)",
    when=(When("att_waitcnt_latency_pct", Cmp.GE, AMD_WAITCNT_SHARE_PCT),),
    inference="waves sit in s_waitcnt lgkmcnt: LDS (or scalar-load) latency is exposed between write and read",
    actions=(A.SOFTWARE_PIPELINING, A.LDS_LAYOUT))
_NARROW_LOADS = Row("amd.narrow_global_loads", S.NARROW_GLOBAL_LOADS, "most static global loads < 128 bit (ASM)",
    when=(When("global_load_narrow_pct", Cmp.GE, AMD_NARROW_LOAD_SHARE_PCT),),
    evidence=(Cite("global_load_narrow_pct", ">=", AMD_NARROW_LOAD_SHARE_PCT), "global_load_insts",
              "global_load_max_bits", att_hotspot(_narrow_load)),
    inference="global memory is read with narrow per-lane loads (no dwordx4), so each wave issues several "
              "times the load instructions a 128-bit access needs",
    actions=(A.VECTORIZED_ACCESS, A.COALESCING),
    confidence=Grade(When("global_load_max_bits", Cmp.LT, 128.0), Confidence.HIGH, Confidence.MEDIUM),
    location=hottest_location(_narrow_load))
_BARRIER = Row("amd.barrier_stalls", S.BARRIER_STALLS, "traced cycles concentrate on s_barrier (ATT)",
    when=(When("att_barrier_latency_pct", Cmp.GE, AMD_BARRIER_SHARE_PCT),),
    evidence=(Cite("att_barrier_latency_pct", ">=", AMD_BARRIER_SHARE_PCT),),
    inference="waves of a workgroup wait for each other at s_barrier",
    actions=(A.SOFTWARE_PIPELINING, A.NUM_WARPS), location=hottest_location(_stalled_on("barrier")))
_L2_MISSES = Row("amd.low_l2_hit_rate", S.LOW_L2_HIT_RATE, "most L2 requests miss (PMC; a stream has no reuse)",
    when=(When("l2_hit_rate_pct", Cmp.LT, AMD_L2_HIT_RATE_PCT),),
    evidence=(Cite("l2_hit_rate_pct", "<", AMD_L2_HIT_RATE_PCT), "l2_requests", "hbm_read_bytes"),
    inference="most L2 requests go to HBM/MALL; if tiles are re-read by other workgroups, their order "
              "does not keep them in L2",
    actions=(A.L2_RASTERIZATION, A.TILING), confidence=Confidence.LOW)

AMD_RULES = RuleTable(Citation.NORMALIZED_NAME, (
    _SCRATCH_SPILLS, _SCRATCH_ARRAY,
    _DRAM_BANDWIDTH,
    _MFMA_IDLE, _NO_MFMA,
    _LDS_BANK_CONFLICTS,
    _VGPR_WAIT, _VGPR_OCCUPANCY,
    _LDS_WAIT, _LDS_OCCUPANCY,
    _FEWER_WORKGROUPS_THAN_CUS, _FEW_WORKGROUPS,
    _VMCNT_WAITS, _LGKMCNT_WAITS,
    _NARROW_LOADS,
    _BARRIER,
    _L2_MISSES,
))
# fmt: on
"""The AMD rules, most important first (the order findings are listed in)."""


def run_amd_rules(kernel: KernelEvidence) -> list[Finding]:
    """Every AMD rule that fires for ``kernel``, most important first."""
    return run_rules(kernel, AMD_RULES)


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
    high = AMD_SOL_HIGH_PCT.value
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
    if limiter is not None and limiter >= AMD_OCCUPANCY_LIMITER_PCT.value:
        return BottleneckType.LAUNCH_OCCUPANCY_BOUND
    waits = kernel.metric("att_waitcnt_latency_pct")
    if (mem is not None and comp is not None) or (waits is not None and waits >= AMD_WAITCNT_SHARE_PCT.value):
        return BottleneckType.LATENCY_BOUND
    return BottleneckType.UNKNOWN
