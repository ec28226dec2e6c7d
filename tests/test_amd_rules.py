"""AMD evidence rules: thresholds, sources, symptoms and actions, on synthetic metrics and real inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.evidence import thresholds
from kernelopt.evidence.amd_rules import AMD_RULES, classify_amd, run_amd_rules
from kernelopt.evidence.amdgcn import analyze
from kernelopt.evidence.model import BottleneckType, Confidence, Hotspot, KernelEvidence, Metric
from kernelopt.evidence.symptoms import Symptom
from kernelopt.profiling.amd_reports import AmdInputs, build_summary, parse_agent_info, read_amd_path

DATA = Path(__file__).parent / "data" / "amd"


def kernel(hotspots: list[Hotspot] | None = None, **metrics: float | None) -> KernelEvidence:
    return KernelEvidence(
        kernel_name="k",
        metrics={name: Metric(value=v, unit="x", source=f"test:{name}") for name, v in metrics.items()},
        hotspots=hotspots or [],
    )


def rule_ids(k: KernelEvidence) -> list[str]:
    return [f.rule_id for f in run_amd_rules(k)]


def test_every_rule_is_pure_and_sourced() -> None:
    everything = kernel(
        global_load_narrow_pct=100,
        global_load_insts=4,
        global_load_max_bits=32,
        lds_bank_conflict_pct=40,
        vgpr_spill_count=3,
        insufficient_vgprs_pct=50,
        insufficient_lds_pct=50,
        workgroups=10,
        cu_count=304,
        valu_busy_pct=90,
        mfma_busy_pct=0,
        att_waitcnt_latency_pct=60,
        att_vmcnt_wait_pct=50,
        att_barrier_latency_pct=25,
        l2_hit_rate_pct=10,
        dram_throughput_pct=80,
    )
    findings = run_amd_rules(everything)
    assert len(findings) == len(AMD_RULES.ids())
    assert len({f.rule_id for f in findings}) == len(findings)
    for f in findings:
        assert f.rule_id.startswith("amd.")
        assert Symptom(f.symptom)  # a known symptom id
        assert f.action_categories and all(isinstance(a, ActionCategory) for a in f.action_categories)
        assert f.evidence[0].threshold and f.evidence[0].threshold_source
        assert all(e.source for e in f.evidence)
        assert " -> " in f.chain()
    assert run_amd_rules(kernel()) == []  # nothing measured: nothing fires
    amd = [t for name, t in vars(thresholds).items() if name.startswith("AMD_")]
    assert len(amd) == 13 and all(isinstance(t, thresholds.Threshold) and t.source for t in amd)


def test_narrow_global_loads_threshold_and_location() -> None:
    assert "amd.narrow_global_loads" not in rule_ids(kernel(global_load_narrow_pct=49.9))
    hot = Hotspot(location="codeobj 1 @0x40", text="global_load_dword v1, v[2:3], off", samples=900.0)
    (f,) = run_amd_rules(kernel([hot], global_load_narrow_pct=50, global_load_insts=8, global_load_max_bits=128))
    assert f.symptom == Symptom.NARROW_GLOBAL_LOADS.value
    assert f.confidence is Confidence.MEDIUM  # some loads are already 128 bit
    assert f.location == "codeobj 1 @0x40"
    assert f.action_categories[0] is ActionCategory.VECTORIZED_ACCESS
    (g,) = run_amd_rules(kernel(global_load_narrow_pct=100, global_load_insts=4, global_load_max_bits=32))
    assert g.confidence is Confidence.HIGH


def test_lds_bank_conflicts() -> None:
    assert rule_ids(kernel(lds_bank_conflict_pct=9.9)) == []
    (f,) = run_amd_rules(kernel(lds_bank_conflict_pct=10))
    assert f.symptom == Symptom.LDS_BANK_CONFLICTS.value
    assert f.action_categories[:2] == [ActionCategory.LDS_LAYOUT, ActionCategory.SMEM_SWIZZLE_PADDING]
    assert "Bank Conflict Rate" in (f.evidence[0].threshold_source or "")


def test_spills_vs_scratch_arrays() -> None:
    assert rule_ids(kernel(vgpr_spill_count=0, scratch_insts=0, scratch_bytes=0)) == []
    (spill,) = run_amd_rules(kernel(vgpr_spill_count=0, sgpr_spill_count=2))
    assert spill.confidence is Confidence.HIGH and spill.symptom == Symptom.SCRATCH_SPILLS.value
    (array,) = run_amd_rules(kernel(vgpr_spill_count=0, scratch_insts=2, scratch_bytes=260))
    assert array.confidence is Confidence.MEDIUM and "private array" in array.inference


def test_occupancy_limiters_from_counters() -> None:
    assert rule_ids(kernel(insufficient_vgprs_pct=9.9, insufficient_lds_pct=9.9)) == []
    ids = rule_ids(kernel(insufficient_vgprs_pct=10, insufficient_lds_pct=0))
    assert ids == ["amd.occupancy_limited_vgprs"]
    (lds,) = run_amd_rules(kernel(insufficient_lds_pct=30))
    assert lds.symptom == Symptom.OCCUPANCY_LIMITED_LDS.value


def test_occupancy_from_compiler_estimate_and_lds_arithmetic() -> None:
    machine = {"max_waves_per_simd": 8, "lds_bytes_per_cu": 65536, "simds_per_cu": 4, "wave_size": 64}
    assert rule_ids(kernel(occupancy_waves_per_simd=5, **machine)) == []  # above half of the slots
    # 2 waves/SIMD, LDS allows 4 workgroups x 4 waves / 4 SIMDs = 4 -> registers are the limiter
    (v,) = run_amd_rules(
        kernel(occupancy_waves_per_simd=2, lds_bytes_per_workgroup=16384, workgroup_size=256, **machine)
    )
    assert v.rule_id == "amd.occupancy_limited_vgprs" and v.confidence is Confidence.MEDIUM
    # 64 KiB per workgroup: one workgroup per CU = 1 wave per SIMD = the occupancy -> LDS is the limiter
    (lds,) = run_amd_rules(
        kernel(occupancy_waves_per_simd=1, lds_bytes_per_workgroup=65536, workgroup_size=256, **machine)
    )
    assert lds.rule_id == "amd.occupancy_limited_lds" and "1 waves per SIMD" in lds.inference
    # without the machine's wave-slot count the compiler estimate alone is not judged
    assert rule_ids(kernel(occupancy_waves_per_simd=1)) == []


def test_small_grid() -> None:
    (f,) = run_amd_rules(kernel(workgroups=100, cu_count=304))
    assert f.rule_id == "amd.occupancy_limited_waves" and f.confidence is Confidence.HIGH
    assert f.symptom == Symptom.SMALL_GRID.value
    (g,) = run_amd_rules(kernel(workgroups=512))
    assert g.confidence is Confidence.MEDIUM and "1024" in (g.evidence[0].threshold_source or "")
    assert rule_ids(kernel(workgroups=4096, cu_count=304)) == []


def test_mfma_underuse_from_counters_and_from_assembly() -> None:
    assert rule_ids(kernel(valu_busy_pct=49, mfma_busy_pct=0)) == []
    assert rule_ids(kernel(valu_busy_pct=80, mfma_busy_pct=30)) == []
    (f,) = run_amd_rules(kernel(valu_busy_pct=80, mfma_busy_pct=2, valu_fma_insts=1e6))
    assert f.symptom == Symptom.MFMA_UNDERUSE.value and f.confidence is Confidence.HIGH
    assert f.action_categories[0] is ActionCategory.MFMA_USE
    (g,) = run_amd_rules(kernel(mfma_static_insts=0, valu_fma_static_insts=256, lds_read_insts=32))
    assert g.confidence is Confidence.LOW
    assert rule_ids(kernel(mfma_static_insts=0, valu_fma_static_insts=256, lds_read_insts=0)) == []


def test_waitcnt_stalls_pick_the_memory_kind() -> None:
    hot = Hotspot(
        location="k.py:9 @0x10", text="s_waitcnt lgkmcnt(0)", samples=5.0, share_pct=40.0, dominant_stall="wait_lgkmcnt"
    )
    assert rule_ids(kernel(att_waitcnt_latency_pct=29)) == []
    (f,) = run_amd_rules(kernel([hot], att_waitcnt_latency_pct=45, att_vmcnt_wait_pct=5, att_lgkmcnt_wait_pct=40))
    assert f.symptom == Symptom.WAITCNT_STALLS.value and f.location == "k.py:9 @0x10"
    assert ActionCategory.LDS_LAYOUT in f.action_categories and "lgkmcnt" in f.inference
    (g,) = run_amd_rules(kernel(att_waitcnt_latency_pct=45, att_vmcnt_wait_pct=40, att_lgkmcnt_wait_pct=5))
    assert g.action_categories[0] is ActionCategory.SOFTWARE_PIPELINING and "vmcnt" in g.inference


def test_l2_and_dram() -> None:
    (l2,) = run_amd_rules(kernel(l2_hit_rate_pct=33.4))
    assert l2.confidence is Confidence.LOW and l2.symptom == Symptom.LOW_L2_HIT_RATE.value
    assert rule_ids(kernel(l2_hit_rate_pct=50)) == []
    (bw,) = run_amd_rules(kernel(dram_throughput_pct=75))
    assert bw.symptom == Symptom.DRAM_BANDWIDTH_BOUND.value
    assert "60.0%" in (bw.evidence[0].threshold_source or "")


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        ({"dram_throughput_pct": 85, "valu_busy_pct": 20}, BottleneckType.MEMORY_BOUND),
        ({"dram_throughput_pct": 65, "mfma_busy_pct": 90}, BottleneckType.COMPUTE_BOUND),
        ({"valu_busy_pct": 61}, BottleneckType.COMPUTE_BOUND),
        ({"workgroups": 16, "cu_count": 304}, BottleneckType.LAUNCH_OCCUPANCY_BOUND),
        ({"insufficient_vgprs_pct": 40}, BottleneckType.LAUNCH_OCCUPANCY_BOUND),
        ({"dram_throughput_pct": 20, "valu_busy_pct": 10}, BottleneckType.LATENCY_BOUND),
        ({"att_waitcnt_latency_pct": 55}, BottleneckType.LATENCY_BOUND),
        ({"global_load_narrow_pct": 100}, BottleneckType.UNKNOWN),
        ({}, BottleneckType.UNKNOWN),
    ],
)
def test_classify(metrics: dict[str, float], expected: BottleneckType) -> None:
    assert classify_amd(kernel(**metrics)) is expected


# ------------------------------------------------------------------------ on real inputs


def test_recorded_att_trace_localizes_the_global_memory_wait() -> None:
    (k,) = read_amd_path(DATA / "amd_mi300x_att_stats_bmm_mfma_dispatch3.csv").kernels
    (f,) = k.findings
    assert f.rule_id == "amd.waitcnt_stalls" and f.location == "codeobj 2 @0x4e70"
    assert f.action_categories[0] is ActionCategory.SOFTWARE_PIPELINING
    assert k.bottleneck is BottleneckType.LATENCY_BOUND


def test_generated_assembly_drives_the_asm_rules() -> None:
    def fired(name: str) -> dict[str, Confidence]:
        (k,) = read_amd_path(DATA / "asm" / name).kernels
        return {f.rule_id: f.confidence for f in k.findings}

    assert fired("triton_gfx942_copy_narrow.amdgcn") == {"amd.narrow_global_loads": Confidence.HIGH}
    assert fired("triton_gfx942_copy_wide.amdgcn") == {}
    assert fired("triton_gfx942_matmul_bf16_wide.amdgcn") == {}
    assert fired("triton_gfx942_matmul_fp32_spill.amdgcn") == {
        "amd.scratch_spills": Confidence.HIGH,
        "amd.narrow_global_loads": Confidence.HIGH,
    }


def test_compiler_occupancy_with_the_machine_description() -> None:
    inputs = AmdInputs(
        asm=analyze((DATA / "asm" / "triton_gfx942_matmul_bf16_narrow.amdgcn").read_text(), "kernel.s"),
        agents=parse_agent_info((DATA / "stub" / "agent_info_mi300x.csv").read_text(), "agent_info.csv"),
    )
    (k,) = build_summary(inputs, tool_used="test").kernels
    f = next(f for f in k.findings if f.rule_id == "amd.occupancy_limited_vgprs")
    assert "1 of 8 waves" in f.inference
    assert k.metrics["registers_per_thread"].value == 334
