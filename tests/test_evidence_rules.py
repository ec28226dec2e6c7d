"""The evidence rules and the bottleneck classifier on synthetic evidence (thresholds at their edges)."""

from __future__ import annotations

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.evidence import thresholds as T
from kernelopt.evidence.bottleneck import classify
from kernelopt.evidence.model import (
    BottleneckType,
    Confidence,
    EvidenceItem,
    Finding,
    Hotspot,
    IsaFacts,
    KernelEvidence,
    Metric,
)
from kernelopt.evidence.nvidia_rules import NVIDIA_RULES
from kernelopt.evidence.rules import (
    Citation,
    Cite,
    Cmp,
    Diff,
    Grade,
    Largest,
    Row,
    RuleTable,
    Smallest,
    Stall,
    Total,
    When,
    rank_findings,
    run_rules,
)
from kernelopt.evidence.symptoms import Symptom


def kernel(stalls: dict[str, float] | None = None, isa: IsaFacts | None = None, **metrics: float) -> KernelEvidence:
    return KernelEvidence(
        kernel_name="k",
        metrics={n: Metric(value=v, unit="x", source=f"ncu:{n}") for n, v in metrics.items()},
        stall_breakdown_pct=stalls or {},
        isa=isa,
        artifact="ncu.ncu-rep",
    )


def symptoms(k: KernelEvidence) -> list[str]:
    return [f.symptom for f in run_rules(k, NVIDIA_RULES)]


def test_rule_table_is_consistent() -> None:
    ids = NVIDIA_RULES.ids()
    assert len(ids) == 27 and all(i.startswith("nv.") for i in ids)
    assert all(isinstance(r.symptom, Symptom) for r in NVIDIA_RULES)
    assert all(r.description for r in NVIDIA_RULES)
    for value in vars(T).values():
        if isinstance(value, T.Threshold):
            assert value.source and value.unit is not None


def test_small_grid_edges() -> None:
    base = {"sm_throughput_pct": 5.0, "memory_throughput_pct": 5.0, "sm_count": 132.0}
    assert "small_grid" in symptoms(kernel(waves_per_sm=0.99, grid_size_blocks=500.0, **base))
    assert "small_grid" not in symptoms(kernel(waves_per_sm=1.0, grid_size_blocks=500.0, **base))
    f = run_rules(kernel(waves_per_sm=0.05, grid_size_blocks=33.0, **base), NVIDIA_RULES)[0]
    assert f.rule_id == "nv.small_grid" and f.estimated_speedup_pct == pytest.approx(75.0)
    assert f.evidence[0].threshold == "< 1 waves" and "SOLBottleneck" in (f.evidence[0].threshold_source or "")


def test_tail_effect() -> None:
    m = {"achieved_occupancy_pct": 50.0, "theoretical_occupancy_pct": 100.0}
    assert "tail_effect" in symptoms(kernel(waves_per_sm=2.5, **m))  # 1/3 of the run time
    assert "tail_effect" not in symptoms(kernel(waves_per_sm=5.5, **m))  # 1/6 < 20 %
    assert "tail_effect" not in symptoms(kernel(waves_per_sm=2.0, **m))  # no partial wave
    assert "tail_effect" not in symptoms(
        kernel(waves_per_sm=2.5, achieved_occupancy_pct=90.0, theoretical_occupancy_pct=100.0)
    )


def test_memory_roof_and_bandwidth() -> None:
    assert symptoms(kernel(dram_throughput_pct=80.0, memory_throughput_pct=80.0, sm_throughput_pct=10.0))[0] == (
        "memory_bound_near_roof"
    )
    s = symptoms(kernel(dram_throughput_pct=79.9, memory_throughput_pct=79.9, sm_throughput_pct=10.0))
    assert "dram_bandwidth_bound" in s and "memory_bound_near_roof" not in s
    assert "dram_bandwidth_bound" not in symptoms(
        kernel(dram_throughput_pct=70.0, memory_throughput_pct=70.0, sm_throughput_pct=65.0)
    )  # balanced: not memory-dominated


def test_compute_bound_with_and_without_tensor_cores() -> None:
    no_tc = kernel(sm_throughput_pct=85.0, memory_throughput_pct=20.0, tensor_pipe_pct=0.0, fma_pipe_pct=82.0)
    assert symptoms(no_tc)[0] == "compute_bound_no_tensor"
    assert "compute_bound" not in symptoms(no_tc)
    tc = kernel(sm_throughput_pct=85.0, memory_throughput_pct=60.0, tensor_pipe_pct=87.0, fma_pipe_pct=10.0)
    f = run_rules(tc, NVIDIA_RULES)[0]
    assert f.symptom == "compute_bound" and f.confidence is Confidence.HIGH and "tensor" in f.inference
    fp64 = kernel(sm_throughput_pct=80.0, memory_throughput_pct=9.0, fp64_pipe_pct=75.0, fma_pipe_pct=0.0)
    assert {"compute_bound", "fp64_use"} <= set(symptoms(fp64))


def test_latency_bound_needs_long_scoreboard_and_low_sol() -> None:
    m = {"sm_throughput_pct": 20.0, "memory_throughput_pct": 30.0, "issue_active_pct": 40.0, "waves_per_sm": 4.0}
    assert "latency_bound" in symptoms(kernel({"long_scoreboard": 30.5}, **m))
    assert "latency_bound" not in symptoms(kernel({"long_scoreboard": 30.0}, **m))
    assert "latency_bound" not in symptoms(kernel({"long_scoreboard": 50.0}, **{**m, "issue_active_pct": 80.0}))
    assert "latency_bound" not in symptoms(kernel({"long_scoreboard": 50.0}, **{**m, "memory_throughput_pct": 65.0}))


@pytest.mark.parametrize(
    ("reason", "symptom"),
    [
        ("short_scoreboard", "latency_bound_short_scoreboard"),
        ("mio_throttle", "mio_throttle"),
        ("barrier", "barrier_stalls"),
        ("lg_throttle", "narrow_global_loads"),
    ],
)
def test_stall_rules(reason: str, symptom: str) -> None:
    k = kernel({reason: 45.0}, issue_active_pct=30.0)
    k.hotspots = [Hotspot(location="kernel.py:12", share_pct=40.0, dominant_stall=reason)]
    f = next(f for f in run_rules(k, NVIDIA_RULES) if f.symptom == symptom)
    assert f.location == "kernel.py:12"
    assert f.evidence[0].value == 45.0 and f.evidence[0].threshold == "> 30 %"


def test_low_issue_efficiency_only_with_a_stall_breakdown() -> None:
    m = {"sm_throughput_pct": 10.0, "memory_throughput_pct": 10.0, "issue_active_pct": 20.0}
    assert "low_issue_efficiency" in symptoms(kernel({"wait": 20.0, "long_scoreboard": 25.0}, **m))
    assert "low_issue_efficiency" not in symptoms(kernel({}, **m))  # --fast: no breakdown, no claim
    assert "low_issue_efficiency" not in symptoms(kernel({"long_scoreboard": 60.0}, **m))


def test_register_spills_dynamic_static_and_compiler() -> None:
    assert run_rules(kernel(local_load_bytes=1024.0), NVIDIA_RULES)[0].confidence is Confidence.HIGH
    static = run_rules(kernel(isa=IsaFacts(spill_ops=12, source="k.sass")), NVIDIA_RULES)[0]
    assert static.symptom == "register_spills" and static.confidence is Confidence.MEDIUM
    compiler = kernel(isa=IsaFacts(spilled_registers=8, spill_ops=None, source="compiler"))
    assert symptoms(compiler) == ["register_spills"]
    assert "register_spills" not in symptoms(kernel(local_load_bytes=0.0, isa=IsaFacts(spill_ops=0)))


def test_occupancy_limiters_and_gap() -> None:
    k = kernel(
        theoretical_occupancy_pct=25.0, achieved_occupancy_pct=24.0, sm_throughput_pct=10.0, memory_throughput_pct=10.0
    )
    k.occupancy_limiters = ["registers", "shared_mem"]
    s = symptoms(k)
    assert {"occupancy_limited_registers", "occupancy_limited_shared_memory"} <= set(s)
    k.metrics["theoretical_occupancy_pct"] = Metric(value=80.0)
    assert not {"occupancy_limited_registers"} & set(symptoms(k))
    assert "achieved_occupancy_gap" in symptoms(kernel(theoretical_occupancy_pct=100.0, achieved_occupancy_pct=89.9))
    assert "achieved_occupancy_gap" not in symptoms(
        kernel(theoretical_occupancy_pct=100.0, achieved_occupancy_pct=90.0)
    )


def test_access_patterns() -> None:
    assert symptoms(kernel(global_load_bytes_per_sector=4.0))[0] == "uncoalesced_global"
    assert "uncoalesced_global" not in symptoms(kernel(global_load_bytes_per_sector=29.0))  # < 10 % waste
    # --fast: no bytes/sector; sectors per request against the widest SASS load
    fast = kernel(global_load_sectors_per_request=32.0, isa=IsaFacts(global_load_bits=32))
    f = run_rules(fast, NVIDIA_RULES)[0]
    assert f.symptom == "uncoalesced_global" and f.estimated_speedup_pct == pytest.approx(87.5)
    assert "uncoalesced_global" not in symptoms(
        kernel(global_load_sectors_per_request=16.0, isa=IsaFacts(global_load_bits=128))
    )
    sparse = {"global_store_bytes_per_sector": 4.0, "global_load_sectors": 1e6}
    assert "sparse_stores" not in symptoms(kernel(global_store_sectors=8.0, **sparse))  # immaterial
    assert "sparse_stores" in symptoms(kernel(global_store_sectors=5e5, **sparse))


def test_bank_conflicts_divergence_block_size() -> None:
    assert "smem_bank_conflicts" in symptoms(kernel(smem_load_bank_conflict_pct=10.0, l1_throughput_pct=50.0))
    assert "smem_bank_conflicts" not in symptoms(kernel(smem_load_bank_conflict_pct=9.9))
    assert "thread_divergence" in symptoms(
        kernel(active_threads_per_warp=32.0, not_predicated_off_threads_per_warp=23.8)
    )
    assert "thread_divergence" not in symptoms(
        kernel(active_threads_per_warp=24.0, not_predicated_off_threads_per_warp=24.0)
    )
    f = run_rules(kernel(block_size_threads=48.0), NVIDIA_RULES)[0]
    assert f.symptom == "block_size_not_warp_multiple" and f.estimated_speedup_pct == pytest.approx(25.0)


def test_atomics_and_fp64() -> None:
    k = kernel(atomic_inst=100.0, inst_executed=1000.0)
    assert run_rules(k, NVIDIA_RULES)[0].confidence is Confidence.LOW  # no sampling data
    k.hotspots = [Hotspot(location="0x00d0", text="@P0 REDG.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5", share_pct=35.0)]
    f = run_rules(k, NVIDIA_RULES)[0]
    assert f.symptom == "atomics" and f.confidence is Confidence.HIGH and f.location == "0x00d0"
    k.hotspots = [Hotspot(location="0x0010", text="FFMA R1, R2, R3, R4", share_pct=90.0)]
    assert "atomics" not in symptoms(k)
    assert "fp64_use" in symptoms(kernel(fp64_inst=10.0))


def test_narrow_loads_only_when_memory_heavy() -> None:
    isa = IsaFacts(global_load_bits=32, global_load_bits_min=32)
    assert "narrow_global_loads" in symptoms(kernel(isa=isa, memory_throughput_pct=70.0, dram_throughput_pct=65.0))
    assert "narrow_global_loads" not in symptoms(kernel(isa=isa, memory_throughput_pct=30.0))
    assert "narrow_global_loads" not in symptoms(kernel(isa=IsaFacts(global_load_bits=128), memory_throughput_pct=90.0))


def test_missing_metrics_fire_nothing() -> None:
    assert symptoms(KernelEvidence(kernel_name="k")) == []
    k = KernelEvidence(kernel_name="k", metrics={"dram_throughput_pct": Metric(value=None, missing_reason="n/a")})
    assert symptoms(k) == []


def test_framework_orders_by_confidence() -> None:
    def make(rule_id: str, conf: Confidence) -> Finding:
        return Finding(rule_id=rule_id, symptom="atomics", confidence=conf, evidence=[], inference="i")

    ranked = rank_findings([make("a", Confidence.LOW), make("b", Confidence.HIGH), make("c", Confidence.LOW)])
    assert [f.rule_id for f in ranked] == ["b", "a", "c"]


def _row(**changes: object) -> Row:
    base = Row(
        "x.rule",
        Symptom.SMALL_GRID,
        "a test rule",
        when=(When("waves_per_sm", Cmp.LT, T.SMALL_GRID_WAVES),),
        evidence=(Cite("waves_per_sm", "<", T.SMALL_GRID_WAVES), "sm_count"),
        inference="{0:g} waves",
        says=("waves_per_sm",),
        actions=(ActionCategory.BLOCK_SIZE,),
    )
    return base.otherwise(**changes)


def test_a_row_fires_cites_and_fills_its_sentence() -> None:
    (f,) = run_rules(kernel(waves_per_sm=0.5, sm_count=132.0), RuleTable(Citation.PROFILER_METRIC, (_row(),)))
    assert f.rule_id == "x.rule" and f.symptom == "small_grid" and f.inference == "0.5 waves"
    assert [e.metric for e in f.evidence] == ["ncu:waves_per_sm", "ncu:sm_count"]
    assert f.evidence[0].threshold == "< 1 waves" and f.evidence[1].threshold is None
    assert f.evidence[0].source == "ncu.ncu-rep (waves_per_sm)"
    by_name = run_rules(kernel(waves_per_sm=0.5), RuleTable(Citation.NORMALIZED_NAME, (_row(),)))[0]
    assert by_name.evidence[0].metric == "waves_per_sm" and by_name.evidence[0].source == "ncu:waves_per_sm"
    assert run_rules(kernel(waves_per_sm=1.0), RuleTable(Citation.PROFILER_METRIC, (_row(),))) == []
    assert run_rules(kernel(), RuleTable(Citation.PROFILER_METRIC, (_row(),))) == []  # not measured: no claim


def test_branches_the_first_that_fires_speaks() -> None:
    first = _row(when=(When("sm_count", Cmp.GT, 100.0),), confidence=Confidence.HIGH)
    second = _row(confidence=Grade(When("waves_per_sm", Cmp.LT, 0.1), Confidence.MEDIUM, Confidence.LOW))
    table = RuleTable(Citation.PROFILER_METRIC, (first, second))
    assert [f.confidence for f in run_rules(kernel(waves_per_sm=0.5, sm_count=132.0), table)] == [Confidence.HIGH]
    assert [f.confidence for f in run_rules(kernel(waves_per_sm=0.5), table)] == [Confidence.LOW]
    assert [f.confidence for f in run_rules(kernel(waves_per_sm=0.05), table)] == [Confidence.MEDIUM]
    with pytest.raises(ValueError, match="adjacent"):
        RuleTable(Citation.PROFILER_METRIC, (first, _row(id="x.other"), second))
    with pytest.raises(ValueError, match="one symptom"):
        RuleTable(Citation.PROFILER_METRIC, (first, _row(symptom=Symptom.TAIL_EFFECT)))


def test_a_test_on_a_missing_quantity_fails_unless_told() -> None:
    k = kernel(sm_count=132.0)
    assert not When("issue_active_pct", Cmp.LT, T.ISSUE_ACTIVE_STALL_PCT)(k)
    assert When("issue_active_pct", Cmp.LT, T.ISSUE_ACTIVE_STALL_PCT, missing=True)(k)
    assert When(Diff("sm_count", "grid_size_blocks"), Cmp.GT, 0.0)(kernel(sm_count=132.0, grid_size_blocks=8.0))
    assert not When(Diff("sm_count", "grid_size_blocks"), Cmp.GT, 0.0)(k)
    assert Largest(("a", "b"))(kernel(a=1.0)) == 1.0 and Smallest(("a", "b"))(kernel()) is None
    assert Total(("a", "b"))(kernel(a=2.0)) == 2.0 and Stall("barrier")(k) is None
    fallback = Cite("scratch_bytes", fallback="sm_count")
    (f,) = run_rules(k, RuleTable(Citation.PROFILER_METRIC, (_row(when=(), evidence=(fallback,), says=()),)))
    assert f.evidence[0].metric == "ncu:sm_count"


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        ({"sm_throughput_pct": 20.0, "memory_throughput_pct": 78.0}, BottleneckType.MEMORY_BOUND),
        ({"sm_throughput_pct": 82.9, "memory_throughput_pct": 78.7}, BottleneckType.COMPUTE_BOUND),
        ({"sm_throughput_pct": 60.0, "memory_throughput_pct": 60.0}, BottleneckType.MEMORY_BOUND),
        ({"sm_throughput_pct": 59.9, "memory_throughput_pct": 20.0, "waves_per_sm": 3.0}, BottleneckType.LATENCY_BOUND),
        (
            {"sm_throughput_pct": 1.0, "memory_throughput_pct": 2.0, "waves_per_sm": 0.004},
            BottleneckType.LAUNCH_OCCUPANCY_BOUND,
        ),
        (
            {"sm_throughput_pct": 1.0, "memory_throughput_pct": 2.0, "grid_size_blocks": 8.0, "sm_count": 132.0},
            BottleneckType.LAUNCH_OCCUPANCY_BOUND,
        ),
        ({"sm_throughput_pct": 50.0}, BottleneckType.UNKNOWN),
    ],
)
def test_classify(metrics: dict[str, float], expected: BottleneckType) -> None:
    c = classify(kernel(**metrics))
    assert c.bottleneck is expected and c.reason and c.evidence
    assert all(isinstance(e, EvidenceItem) for e in c.evidence)
