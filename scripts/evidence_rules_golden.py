"""Record what the evidence rule tables conclude, to prove that a change to them keeps every rule's behaviour.

Runs the NVIDIA table (with the Nsight Compute guided rules and the bottleneck class) and the AMD table on
a seeded fuzz of synthetic kernels (metric values at and around every threshold, stall breakdowns,
hotspots, ISA facts, markers, profiler rule results), and reads every recorded report under
``tests/data``, ``../shared/fixtures-public`` and ``examples``; writes all findings as JSON. Two runs
on the same inputs are byte-identical, so a table edit that must not change behaviour is checked with::

    PYTHONPATH=src python3 scripts/evidence_rules_golden.py /tmp/before.json   # on the old code
    PYTHONPATH=src python3 scripts/evidence_rules_golden.py /tmp/after.json    # on the new code
    cmp /tmp/before.json /tmp/after.json

The fuzz draws from a fixed list of metric names (below), so it is the same whatever the rule modules
hold. Used for the rules-as-data rewrite (issue 25): 16000 kernels and 74 recorded files, identical.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

from kernelopt.evidence import nvidia
from kernelopt.evidence.amd_rules import classify_amd, run_amd_rules
from kernelopt.evidence.bottleneck import classify
from kernelopt.evidence.model import Hotspot, IsaFacts, KernelEvidence, Metric, ProfilerRuleResult, SourceMarker
from kernelopt.profiling.reader import read_evidence

ROOT = Path(__file__).resolve().parent.parent
NAMES = [
    "achieved_occupancy_pct",
    "active_threads_per_warp",
    "active_warps_per_scheduler",
    "alu_pipe_pct",
    "asm_scratch_bytes",
    "atomic_inst",
    "att_barrier_latency_pct",
    "att_lgkmcnt_wait_pct",
    "att_vmcnt_wait_pct",
    "att_waitcnt_latency_pct",
    "b128",
    "barrier",
    "bits",
    "block_size_threads",
    "blocks",
    "branch_uniform_pct",
    "buffer_load",
    "compiler",
    "cu_count",
    "cycles",
    "drain",
    "dram_gbps",
    "dram_read_bytes",
    "dram_throughput_pct",
    "dram_write_bytes",
    "duration_us",
    "dwordx4",
    "eligible_warps_per_scheduler",
    "flat_load",
    "fma_pipe_pct",
    "fp64_inst",
    "fp64_pipe_pct",
    "global_excessive_sectors_pct",
    "global_load",
    "global_load_bytes_per_sector",
    "global_load_insts",
    "global_load_max_bits",
    "global_load_narrow_pct",
    "global_load_sector_waste",
    "global_load_sectors",
    "global_load_sectors_per_request",
    "global_store_bytes_per_sector",
    "global_store_sector_share",
    "global_store_sector_waste",
    "global_store_sectors",
    "global_store_sectors_per_request",
    "grid_size",
    "grid_size_blocks",
    "hbm_read_bytes",
    "ideal_sectors_per_request",
    "inst_executed",
    "instructions",
    "insufficient_lds_pct",
    "insufficient_vgprs_pct",
    "issue_active_pct",
    "l1",
    "l1_throughput_pct",
    "l2",
    "l2_hit_rate_pct",
    "l2_requests",
    "l2_throughput_pct",
    "lds_bank_conflict_cycles",
    "lds_bank_conflict_pct",
    "lds_bytes_per_cu",
    "lds_bytes_per_workgroup",
    "lds_dwordx4",
    "lds_insts",
    "lds_read_insts",
    "lg_throttle",
    "load",
    "local_load_bytes",
    "local_load_inst",
    "local_store_bytes",
    "local_store_inst",
    "long_scoreboard",
    "max_waves_per_simd",
    "memory_throughput_pct",
    "mfma_busy_pct",
    "mfma_insts",
    "mfma_static_insts",
    "mio_throttle",
    "not_predicated_off_threads_per_warp",
    "occupancy_limit_blocks_blocks",
    "occupancy_limit_registers_blocks",
    "occupancy_limit_shared_mem_blocks",
    "occupancy_limit_warps_blocks",
    "occupancy_waves_per_simd",
    "partial_wave_share",
    "registers",
    "registers_per_thread",
    "scratch_bytes",
    "scratch_insts",
    "sectors",
    "selected",
    "sgpr_spill_count",
    "shared_mem",
    "shared_mem_per_block_bytes",
    "short_scoreboard",
    "simds_per_cu",
    "sm_count",
    "sm_throughput_pct",
    "smem_bank_conflicts",
    "smem_load_bank_conflict_pct",
    "smem_store_bank_conflict_pct",
    "source",
    "spill_insts",
    "spill_requests",
    "stall_barrier_cycles_per_inst",
    "stall_drain_cycles_per_inst",
    "stall_lg_throttle_cycles_per_inst",
    "stall_long_scoreboard_cycles_per_inst",
    "stall_mio_throttle_cycles_per_inst",
    "stall_samples_share",
    "stall_short_scoreboard_cycles_per_inst",
    "store",
    "taxonomy",
    "tensor",
    "tensor_pipe_pct",
    "theoretical_occupancy_pct",
    "valu_busy_pct",
    "valu_fma_insts",
    "valu_fma_static_insts",
    "vgpr_spill_count",
    "vgprs_accumulation",
    "vgprs_architected",
    "vgprs_total",
    "wait_",
    "wait_lgkmcnt",
    "warp_cycles_per_issued_inst",
    "warps",
    "wave_size",
    "waves_per_sm",
    "workgroup_size",
    "workgroups",
]
CORE = {
    "sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct", "waves_per_sm", "issue_active_pct",
    "achieved_occupancy_pct", "theoretical_occupancy_pct", "tensor_pipe_pct", "fma_pipe_pct", "fp64_pipe_pct",
    "l1_throughput_pct", "l2_throughput_pct", "grid_size_blocks", "sm_count", "workgroups", "cu_count",
    "valu_busy_pct", "mfma_busy_pct", "occupancy_waves_per_simd", "max_waves_per_simd",
}  # fmt: skip
VALUES = [
    0.0,
    0.5,
    0.99,
    1.0,
    2.0,
    2.5,
    5.0,
    5.5,
    9.9,
    10.0,
    20.0,
    24.0,
    30.0,
    30.1,
    32.0,
    33.0,
    40.0,
    50.0,
    59.9,
    60.0,
    65.0,
    79.9,
    80.0,
    85.0,
    100.0,
    128.0,
    132.0,
    256.0,
    304.0,
    500.0,
    512.0,
    1024.0,
    65536.0,
]
STALLS = [
    "long_scoreboard",
    "short_scoreboard",
    "mio_throttle",
    "barrier",
    "lg_throttle",
    "drain",
    "selected",
    "wait",
    "not_selected",
    "math_pipe_throttle",
]
TEXTS = [
    None,
    "LDL R2, [R1]",
    "STL [R1], R2",
    "@P0 ATOMG.E.ADD.F32 R1, [R2], R3",
    "RED.E.ADD [R2], R3",
    "LDG.E.128 R4, [R2]",
    "FFMA R1, R2, R3, R4",
    "global_load_dword v1, v[2:3], off",
    "global_load_dwordx4 v[1:4], v[2:3], off",
    "buffer_load_dword v1",
    "s_waitcnt vmcnt(0)",
    "s_barrier",
    "ds_read_b128 v[0:3], v4",
]
HOT_STALLS = [
    None,
    "long_scoreboard",
    "barrier",
    "wait_lgkmcnt",
    "wait_vmcnt",
    "drain",
    "lg_throttle",
    "short_scoreboard",
    "mio_throttle",
]
GUIDED = [
    "SharedMemoryConflicts",
    "UncoalescedSharedAccess",
    "UncoalescedGlobalAccess",
    "IssueSlotUtilization",
    "AchievedOccupancy",
    "CPIStall",
    "MemoryCacheAccessPattern",
    "SOLBottleneck",
]


def fuzz_kernel(rng: random.Random) -> KernelEvidence:
    p = rng.choice([0.05, 0.15, 0.3, 0.6])
    metrics = {}
    core = rng.random() < 0.5
    for n in NAMES:
        if rng.random() < (0.75 if core and n in CORE else p):
            r = rng.random()
            if r < 0.08:
                metrics[n] = Metric(value=None, unit="x", missing_reason="n/a here")
            else:
                v = rng.choice(VALUES) if r < 0.8 else round(rng.uniform(0, 120), 3)
                metrics[n] = Metric(
                    value=v, unit=rng.choice(["%", "count", None]), source=rng.choice([None, f"src:{n}"])
                )
    stalls = {}
    if rng.random() < 0.6:
        for s in rng.sample(STALLS, rng.randint(1, 5)):
            stalls[s] = rng.choice([0.0, 5.0, 10.0, 29.9, 30.0, 30.5, 45.0, 70.0])
    hotspots = [
        Hotspot(
            location=f"k.py:{i}",
            text=rng.choice(TEXTS),
            samples=rng.choice([None, 10.0, 400.0]),
            share_pct=rng.choice([None, 5.0, 10.0, 10.5, 40.0]),
            dominant_stall=rng.choice(HOT_STALLS),
        )
        for i in range(rng.choice([0, 0, 1, 2, 4]))
    ]
    isa = None
    if rng.random() < 0.5:
        isa = IsaFacts(
            global_load_bits=rng.choice([None, 32, 64, 128]),
            spill_ops=rng.choice([None, 0, 3]),
            spilled_registers=rng.choice([None, 0, 4]),
            source=rng.choice([None, "k.sass"]),
        )
    markers = [
        SourceMarker(rule_id=rng.choice(GUIDED), location=f"k.py:{i}", kind=rng.choice(["source", "sass"]), message="m")
        for i in range(rng.choice([0, 0, 1, 3]))
    ]
    prules = [
        ProfilerRuleResult(
            rule_id=rng.choice(GUIDED), message="msg  text", estimated_speedup_pct=rng.choice([None, 5.0, 10.0, 40.0])
        )
        for _ in range(rng.choice([0, 0, 1, 3]))
    ]
    limiters = rng.sample(["registers", "shared_mem", "warps", "blocks"], rng.choice([0, 0, 1, 2]))
    return KernelEvidence(
        kernel_name="k",
        metrics=metrics,
        stall_breakdown_pct=stalls,
        hotspots=hotspots,
        isa=isa,
        source_markers=markers,
        profiler_rules=prules,
        occupancy_limiters=limiters,
        artifact=rng.choice([None, "r.ncu-rep"]),
    )


def _safely(fn: Callable[[], object]) -> object:
    try:
        return fn()
    except Exception as e:  # an error is part of the recorded behaviour
        return f"EXC {type(e).__name__}: {e}"


def _nvidia(k: KernelEvidence) -> dict:
    nvidia.evaluate_kernel(k)
    c = classify(k)
    return {
        "b": k.bottleneck.value,
        "f": [f.model_dump(mode="json") for f in k.findings],
        "c": [c.reason, [e.model_dump(mode="json") for e in c.evidence]],
    }


def _amd(k: KernelEvidence) -> dict:
    return {"b": classify_amd(k).value, "f": [f.model_dump(mode="json") for f in run_amd_rules(k)]}


def _recorded() -> dict[str, object]:
    out: dict[str, object] = {}
    for root in (ROOT / "tests" / "data", ROOT.parent / "shared" / "fixtures-public", ROOT / "examples"):
        for p in sorted(root.rglob("*")):
            if p.is_dir() and not (p / "summary.json").exists() and not list(p.glob("*.ncu-rep")):
                continue
            if p.is_file() and not re.search(r"\.(ncu-rep|ncu-rep\.gz|csv|s|amdgcn|json)$", p.name):
                continue
            out[str(p.relative_to(root.parent))] = _safely(lambda p=p: read_evidence(p).model_dump(mode="json"))
    return out


def main() -> None:
    """Usage: evidence_rules_golden.py OUT.json [KERNELS] (default 8000 fuzzed kernels per vendor)."""
    rng = random.Random(1234)
    out: dict[str, object] = {"fuzz_nv": [], "fuzz_amd": []}
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 8000):
        k = fuzz_kernel(rng)
        k2 = k.model_copy(deep=True)
        out["fuzz_nv"].append(_safely(lambda k=k: _nvidia(k)))  # type: ignore[attr-defined]
        out["fuzz_amd"].append(_safely(lambda k2=k2: _amd(k2)))  # type: ignore[attr-defined]
    out["files"] = _recorded()
    Path(sys.argv[1]).write_text(json.dumps(out, indent=0, sort_keys=True))
    fired: dict[str, int] = {}
    for r in [*out["fuzz_nv"], *out["fuzz_amd"]]:  # type: ignore[misc]
        for f in r["f"] if isinstance(r, dict) else []:
            fired[f["rule_id"]] = fired.get(f["rule_id"], 0) + 1
    print(f"{len(fired)} rule ids fired; least: {sorted(fired.items(), key=lambda kv: kv[1])[:3]}")
    print(hashlib.sha256(Path(sys.argv[1]).read_bytes()).hexdigest())


if __name__ == "__main__":
    main()
