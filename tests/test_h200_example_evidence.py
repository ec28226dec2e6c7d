"""The examples' V0 evidence recorded on the H200 leads the rule planner to the move a performance
engineer would make first (tests/data/h200_examples: real Stage 1 summaries, rules re-run here).

The first H200 run of matmul, softmax and layernorm (2026-11-29, docs/gpu-runs/2026-11-29-run3-*) showed
the planner shrinking a 32x32 matmul tile that was starved of reuse, and never touching BLOCK_SIZE in
the row kernels whose 16/32-bit loads and busy schedulers asked for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import StageContext
from kernelopt.backends.rules import RulePlanner
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.ncu_guided import add_guided_findings
from kernelopt.evidence.nvidia_rules import NVIDIA_RULES
from kernelopt.evidence.rules import run_rules
from kernelopt.evidence.summary import read_summary
from kernelopt.workspace import Workspace

DATA = Path(__file__).parent / "data" / "h200_examples"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def evidence(example: str, run: str = "") -> ProfileSummary:
    summary = read_summary(DATA / f"{example}_v0_summary{run}.json")
    for k in summary.kernels:
        k.findings = run_rules(k, NVIDIA_RULES) + add_guided_findings(k)
    return summary


def first_plan(example: str, root: Path, run: str = ""):  # type: ignore[no-untyped-def]
    folder = EXAMPLES / example
    ws = Workspace.create(
        example,
        kernel=folder / "kernel.py",
        reference=folder / "reference.py",
        root=root,
        task_card=folder / "README.md",
    )
    ctx = StageContext(workspace=ws, version=1, summary=evidence(example, run), history=[])
    return RulePlanner({"knob_only": True, "search": False}).plan(ctx).plan


def test_matmul_starved_of_reuse_is_onchip_bound_and_grows_its_tile(ws_root: Path) -> None:
    kernel = evidence("matmul").kernels[0]
    found = {f.rule_id: f for f in kernel.findings}
    onchip = found["nv.onchip_bandwidth_bound"]  # memory SOL 94.5 % (L1 95 %), DRAM 11.7 %
    assert onchip.action_categories[0] is ActionCategory.TILING
    assert "L1/shared memory" in onchip.inference
    assert {e.metric for e in onchip.evidence} >= {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}
    plan = first_plan("matmul", ws_root)
    assert plan is not None and plan.action_category is ActionCategory.TILING
    assert plan.parameters == {"BLOCK_M": 64}  # grows, though register-limited occupancy also fired


@pytest.mark.parametrize("example", ["softmax", "layernorm"])
def test_row_kernels_with_narrow_loads_get_a_wider_access(example: str) -> None:
    kernel = evidence(example).kernels[0]
    narrow = next(f for f in kernel.findings if f.rule_id == "nv.narrow_global_loads")
    assert narrow.evidence[0].value is not None and float(narrow.evidence[0].value) < 128
    assert narrow.action_categories == [ActionCategory.VECTORIZED_ACCESS]


def test_issue_heavy_softmax_counts_as_narrow_loads_and_moves_block_size(ws_root: Path) -> None:
    kernel = evidence("softmax").kernels[0]
    narrow = next(f for f in kernel.findings if f.rule_id == "nv.narrow_global_loads")
    assert "issue-heavy" in narrow.inference  # memory SOL 41.7 %, issue active 82.6 %
    plan = first_plan("softmax", ws_root)
    assert plan is not None and plan.action_category is ActionCategory.VECTORIZED_ACCESS
    assert plan.parameters == {"BLOCK_SIZE": 256}


def test_onchip_rule_stays_quiet_when_dram_carries_the_traffic() -> None:
    from kernelopt.evidence.nvidia_rules import onchip_bandwidth_bound

    kernel = evidence("matmul").kernels[0]
    assert onchip_bandwidth_bound(kernel) is not None
    dram = kernel.metrics["dram_throughput_pct"]
    kernel.metrics["dram_throughput_pct"] = dram.model_copy(update={"value": 80.0})
    assert onchip_bandwidth_bound(kernel) is None  # DRAM above half the memory SOL: not a reuse problem
    kernel.metrics["dram_throughput_pct"] = dram
    mem = kernel.metrics["memory_throughput_pct"]
    kernel.metrics["memory_throughput_pct"] = mem.model_copy(update={"value": 40.0})
    assert onchip_bandwidth_bound(kernel) is None  # memory units not busy: latency, not bandwidth


def test_latency_bound_layernorm_widens_its_loads_first(ws_root: Path) -> None:
    # run 4: memory SOL 59.8 %, issue active 58.0 %: neither memory- nor issue-heavy, but long-scoreboard
    # stalls take 71.5 % of warp cycles and the loads are 32 bits: the bytes in flight are the limit
    kernel = evidence("layernorm", "_run4").kernels[0]
    found = {f.rule_id: f for f in kernel.findings}
    assert "memory-latency-bound" in found["nv.narrow_global_loads"].inference
    assert found["nv.latency_bound"].action_categories[0] is ActionCategory.VECTORIZED_ACCESS
    plan = first_plan("layernorm", ws_root, "_run4")
    assert plan is not None and plan.action_category is ActionCategory.VECTORIZED_ACCESS
    assert plan.parameters == {"BLOCK_SIZE": 512}
    assert "BLOCK_SIZE / (32 * num_warps)" in plan.action  # the wiki's Triton advice, quoted


def test_profiler_rules_restating_a_finding_do_not_vote_twice() -> None:
    from kernelopt.planning.ranking import profiler_scores

    kernel = evidence("layernorm", "_run4").kernels[0]
    rules = {r.rule_id for r in kernel.profiler_rules}
    assert {"CPIStall", "IssueSlotUtilization"} <= rules  # both estimate 39.7 %
    assert ActionCategory.NUM_WARPS not in profiler_scores(kernel)  # latency_bound already read them
    kernel.findings = []
    scores = profiler_scores(kernel)
    assert scores[ActionCategory.SOFTWARE_PIPELINING] > 0  # without the findings, the rules count
    # ... but IssueSlotUtilization votes no more warps at 90.8 % achieved occupancy (it asks to cut stalls):
    # pipelining gets both rules' first votes, num_warps only CPIStall's second (half of one)
    assert scores[ActionCategory.NUM_WARPS] == pytest.approx(scores[ActionCategory.SOFTWARE_PIPELINING] / 4)


def test_layernorm_on_the_memory_bound_side_of_the_line_also_widens_its_loads(ws_root: Path) -> None:
    # run 5 profiled the same kernel at memory SOL 60.5 %: memory-bound, no latency finding; Nsight
    # Compute's CPIStall and IssueSlotUtilization (39.5 % each) sent the loop to num_warps 4 -> 2 (0.769x).
    # Now: more warps is no answer at 91 % achieved occupancy, CPIStall restates the narrow-loads cause,
    # and num_stages has no tl.dot to pipeline.
    kernel = evidence("layernorm", "_run5").kernels[0]
    assert kernel.metric("memory_throughput_pct") == pytest.approx(60.5, abs=0.05)
    assert "memory-heavy" in next(f for f in kernel.findings if f.rule_id == "nv.narrow_global_loads").inference
    plan = first_plan("layernorm", ws_root, "_run5")
    assert plan is not None and plan.parameters == {"BLOCK_SIZE": 512}
    log = " ".join(e.actionability for e in plan.search_log)
    assert "num_stages: Triton pipelines the loads that feed tl.dot" in log


def test_num_stages_stays_a_move_for_the_matmul(ws_root: Path) -> None:
    from kernelopt.planning.ranking import stages_without_dot

    assert not stages_without_dot(evidence("matmul").kernels[0])  # tl.dot: tensor-core instructions in SASS
    assert stages_without_dot(evidence("softmax").kernels[0])
