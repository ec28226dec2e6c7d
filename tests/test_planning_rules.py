"""The rule planner on realistic Stage 1 summaries: expected category first, history respected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import Planner, PlanOutcome, StageContext
from kernelopt.backends.registry import planner_class
from kernelopt.backends.rules import RulePlanner
from kernelopt.evidence.model import Confidence, EvidenceItem, Finding, ProfilerRuleResult
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.history import build_history
from kernelopt.planning.knobs import Knob
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.ranking import rank
from kernelopt.planning.rules import knobs_from_tunables
from kernelopt.planning.validate import validate_plan
from kernelopt.workspace import Workspace

from .conftest import KERNELS
from .data.planning import fakes

SOFTMAX_KNOBS = [{"name": "num_warps", "value": 4, "location": "kernel.py:40"}, {"name": "BLOCK_SIZE", "value": 1024}]
ADD_KNOBS = [{"name": "BLOCK_SIZE", "value": 1024, "location": "kernel.py:12"}, {"name": "num_warps", "value": 4}]
SMALL_KNOBS = [{"name": "BLOCK_SIZE", "value": 4096}, {"name": "num_warps", "value": 8}]
MATMUL_KNOBS = [
    {"name": "BLOCK_M", "value": 128},
    {"name": "BLOCK_N", "value": 256},
    {"name": "BLOCK_K", "value": 64},
    {"name": "num_warps", "value": 4},
    {"name": "num_stages", "value": 4},
]


def make_ws(root: Path, name: str = "tri", front: str = "framework: triton\ngpu: H200\n") -> Workspace:
    card = root / f"{name}_README.md"
    card.write_text(f"---\n{front}---\nTask card.\n")
    return Workspace.create(
        name, kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=root, task_card=card
    )


@pytest.fixture
def ws(ws_root: Path) -> Workspace:
    return make_ws(ws_root)


def run_planner(
    ws: Workspace,
    summary: str,
    knobs: list[Any] | None,
    history: list[IterationRecord] | None = None,
    version: int = 1,
    **options: Any,
) -> PlanOutcome:
    fakes.install_summary(ws, version, summary)
    options.setdefault("wiki_search", fakes.FakeWiki())
    options.setdefault("search", False)  # one knob move per plan (what agent implementers get)
    if knobs is not None:
        options["knobs"] = knobs
    planner = RulePlanner(options)
    ctx = StageContext(workspace=ws, version=version, summary=fakes.summary(summary), history=history or [])
    return planner.plan(ctx)


def test_registry_and_protocol() -> None:
    cls = planner_class("rules")
    assert cls is RulePlanner
    p = cls(None)
    assert isinstance(p, Planner) and p.name == "rules"
    from kernelopt.errors import UsageError

    with pytest.raises(UsageError, match="unknown option"):
        RulePlanner({"colour": "red"})


def test_memory_bound_softmax_plans_fewer_bytes(ws: Workspace) -> None:
    out = run_planner(ws, "softmax_memory_bound", SOFTMAX_KNOBS)
    plan = out.plan
    assert plan is not None
    assert plan.action_category is ActionCategory.REDUCE_BYTES
    assert plan.parameters == {} and plan.targets == ["kernel.py:21"]
    assert plan.bottleneck_type == "memory_bound" and plan.planner == "rules"
    assert plan.search_log[0].source == "gpu-wiki" and "online-softmax-single-pass" in plan.search_log[0].finding
    assert plan.search_log[0].actionability.startswith("actionable, chosen: reduce_bytes")
    assert len(plan.search_log) == 2  # gpu-wiki had a path: no other source searched
    assert "wiki:online-softmax-single-pass" in plan.references
    assert any("88.1 %" in e for e in plan.evidence)
    assert "read once" in plan.action
    assert plan.risk_level.value == "medium"
    # the file is the plan
    written = parse_plan(ws.plan_path(1).read_text(), origin="plans/v1_plan.md")
    assert written == plan
    validate_plan(written, ws, [], None)


def test_memory_bound_add_knob_only_grows_block(ws: Workspace) -> None:
    out = run_planner(ws, "add_memory_bound", ADD_KNOBS, knob_only=True)
    plan = out.plan
    assert plan is not None
    assert plan.action_category is ActionCategory.BLOCK_SIZE
    assert plan.parameters == {"BLOCK_SIZE": 2048} and plan.current_values == {"BLOCK_SIZE": 1024}
    assert "kernel.py:12" in plan.action and plan.risk_level.value == "low"
    assert "wiki:nv-triton-block-size-grow" in plan.references


def test_small_grid_shrinks_block(ws: Workspace) -> None:
    plan = run_planner(ws, "small_grid_latency", SMALL_KNOBS).plan
    assert plan is not None
    assert plan.action_category is ActionCategory.BLOCK_SIZE
    assert plan.parameters == {"BLOCK_SIZE": 2048} and plan.current_values == {"BLOCK_SIZE": 4096}
    assert plan.expected_speedup_pct == 50.0
    assert "launch__grid_size = 66 count" in plan.evidence[0]
    assert any(
        e.startswith("profiler rule LaunchConfiguration: estimated_speedup_pct = 50 % GLOBAL") for e in plan.evidence
    )


def test_spilling_matmul_shrinks_largest_tile(ws: Workspace) -> None:
    plan = run_planner(ws, "spilling_matmul", MATMUL_KNOBS).plan
    assert plan is not None
    assert plan.action_category is ActionCategory.REGISTER_PRESSURE
    assert plan.parameters == {"BLOCK_N": 128} and plan.current_values == {"BLOCK_N": 256}
    assert plan.expected_speedup_pct == 37.5
    assert any("sass.spill_ops = 48 count" in e for e in plan.evidence)


def test_timing_only_plan_says_so(ws: Workspace) -> None:
    out = run_planner(ws, "timing_only", ADD_KNOBS)
    plan = out.plan
    assert plan is not None and plan.counters_available is False
    assert "Planned from timing-only evidence" in ws.plan_path(1).read_text()
    assert plan.search_log[0].source == "gpu-wiki" and "timing only" in plan.search_log[0].query
    assert plan.action_category is ActionCategory.BLOCK_SIZE and plan.parameters == {"BLOCK_SIZE": 2048}


def test_wiki_queries_carry_scope_and_symptoms(ws: Workspace) -> None:
    wiki = fakes.FakeWiki()
    run_planner(ws, "small_grid_latency", SMALL_KNOBS, wiki_search=wiki)
    assert [c["symptoms"] for c in wiki.calls] == [["small_grid"], ["latency_bound"]]
    assert {(c["arch"], c["vendor"], c["framework"]) for c in wiki.calls} == {("sm_90", "nvidia", "triton")}
    assert "launch__grid_size" in str(wiki.calls[0]["query"])


def test_deterministic(ws: Workspace) -> None:
    run_planner(ws, "spilling_matmul", MATMUL_KNOBS)
    first = ws.plan_path(1).read_text()
    run_planner(ws, "spilling_matmul", MATMUL_KNOBS)
    assert ws.plan_path(1).read_text() == first


def test_tried_action_is_never_proposed_and_masked_may_be(ws: Workspace) -> None:
    failed = fakes.record(1, "block_size", {"BLOCK_SIZE": [4096, 2048]}, quality_gate={"result": "FAIL"})
    plan = run_planner(ws, "small_grid_latency", SMALL_KNOBS, [failed], version=2, knob_only=True).plan
    assert plan is not None
    assert plan.parameters.get("BLOCK_SIZE") != 2048
    assert plan.action_category is ActionCategory.NUM_WARPS and plan.parameters == {"num_warps": 16}
    assert "tried in v1" in " ".join(e.actionability for e in plan.search_log)
    masked = failed.model_copy(update={"masked": True})
    again = run_planner(ws, "small_grid_latency", SMALL_KNOBS, [masked], version=2, knob_only=True).plan
    assert again is not None and again.parameters == {"BLOCK_SIZE": 2048}


def test_same_knob_setting_under_another_category_is_tried(ws: Workspace) -> None:
    # BLOCK_SIZE=2048 was tried as vectorized_access: block_size must not re-propose it
    rec = fakes.record(1, "vectorized_access", {"BLOCK_SIZE": [1024, 2048]}, quality_gate={"result": "FAIL"})
    plan = run_planner(ws, "add_memory_bound", ADD_KNOBS, [rec], version=2, knob_only=True).plan
    assert plan is not None and plan.parameters != {"BLOCK_SIZE": 2048}


def test_regressed_direction_is_not_retried(ws: Workspace) -> None:
    # num_warps 4 -> 8 made it slower; the kernel now holds 8 (set by hand): going further up is banned
    regressed = fakes.record(
        1,
        "num_warps",
        {"num_warps": [4, 8]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"latency_delta": 7.5}},
    )
    knobs = [{"name": "BLOCK_SIZE", "value": 16}, {"name": "num_warps", "value": 8}]  # BLOCK at its floor
    plan = run_planner(ws, "small_grid_latency", knobs, [regressed], version=2, knob_only=True).plan
    assert plan is not None
    assert plan.parameters == {"num_warps": 4}  # the other direction, never 16 or 32
    assert "num_warps up regressed in v1 (4 -> 8)" in " ".join(e.actionability for e in plan.search_log)


def test_regressed_jump_allows_a_shorter_step(ws: Workspace) -> None:
    # num_warps 8 -> 32 overshot and was reverted: the contraction step 8 -> 16 is still worth a try
    regressed = fakes.record(
        1,
        "num_warps",
        {"num_warps": [8, 32]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"latency_delta": 7.5}},
    )
    knobs = [{"name": "BLOCK_SIZE", "value": 16}, {"name": "num_warps", "value": 8}]
    plan = run_planner(ws, "small_grid_latency", knobs, [regressed], version=2, knob_only=True).plan
    assert plan is not None and plan.parameters == {"num_warps": 16}
    assert "one step up" in plan.action


def test_improvement_is_not_undone(ws: Workspace) -> None:
    improved = fakes.record(
        1,
        "num_warps",
        {"num_warps": [8, 4]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"verdict": "improvement"}},
    )
    knobs = [{"name": "BLOCK_SIZE", "value": 16}, {"name": "num_warps", "value": 4}]
    plan = run_planner(ws, "small_grid_latency", knobs, [improved], version=2, knob_only=True).plan
    # the last move down improved: the next one goes twice as far (pattern-search expansion)
    assert plan is not None and plan.parameters == {"num_warps": 1}
    assert "a x4 step down" in plan.action
    assert "num_warps 4 -> 8 undoes the improvement of v1" in " ".join(e.actionability for e in plan.search_log)


def test_improving_direction_is_continued(ws: Workspace) -> None:
    improved = fakes.record(
        1,
        "block_size",
        {"BLOCK_SIZE": [4096, 2048]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"speedup": 1.31, "verdict": "improvement"}},
    )
    knobs = [{"name": "BLOCK_SIZE", "value": 2048}, {"name": "num_warps", "value": 8}]
    plan = run_planner(ws, "small_grid_latency", knobs, [improved], version=2).plan
    assert plan is not None and plan.parameters == {"BLOCK_SIZE": 512}  # x4: the last halving paid


def _simulate(ws: Workspace, summary: str, knobs: list[dict[str, Any]], improve: bool, **opts: Any) -> list[Any]:
    """Plan, record, apply (or revert) repeatedly; return the signatures planned, in order."""
    history: list[IterationRecord] = []
    values = {k["name"]: k["value"] for k in knobs}
    seen = []
    for n in range(1, 30):
        current = [{"name": k, "value": v} for k, v in values.items()]
        out = run_planner(ws, summary, current, history, version=n, **opts)
        if out.plan is None:
            assert out.reason and "no new actionable path" in out.reason
            assert not ws.plan_path(n).exists()
            return seen
        plan = out.plan
        validate_plan(parse_plan(ws.plan_path(n).read_text()), ws, history, None)
        seen.append(plan.signature())
        changes = {k: [plan.current_values.get(k), v] for k, v in plan.parameters.items()}
        cmp = {"latency_delta": -10.0} if improve else {"latency_delta": 12.0}
        history.append(
            fakes.record(
                n,
                plan.action_category.value,
                changes,
                quality_gate={"result": "PASS"},
                performance={"comparison_with_previous": cmp},
            )
        )
        if improve:
            values.update({k: int(v) for k, v in plan.parameters.items() if isinstance(v, int)})
    raise AssertionError("the planner never ran out of actions")


@pytest.mark.parametrize("improve", [True, False], ids=["improving", "regressing"])
def test_loop_never_repeats_and_ends(ws: Workspace, improve: bool) -> None:
    seen = _simulate(ws, "small_grid_latency", SMALL_KNOBS, improve, knob_only=True)
    assert len(seen) == len(set(seen)) >= 2


def test_loop_with_code_actions_never_repeats(ws: Workspace) -> None:
    seen = _simulate(ws, "spilling_matmul", MATMUL_KNOBS, improve=False)
    assert len(seen) == len(set(seen)) >= 3
    assert any(not params for _, params in seen)  # code-level actions were planned too


def test_nothing_left_writes_nothing(ws: Workspace) -> None:
    out = run_planner(ws, "small_grid_latency", [], knob_only=True)
    assert out.plan is None
    # nothing the rules backend can move: the reason names the backends that write code (issue 16)
    assert out.reason is not None and out.reason.startswith("the rules backend has nothing it can move in v1")
    assert "agent-cli" in out.reason and "llm-api" in out.reason
    assert not ws.plan_path(1).exists()


def test_tunables_adapter() -> None:
    class T:
        def __init__(self, name: str, value: object, **kw: object) -> None:
            self.name, self.value = name, value
            self.__dict__.update(kw)

    knobs = knobs_from_tunables(
        [
            T("num_warps", 4, line=57),
            T("BLOCK_SIZE", 1024, legal_values=[256, 512, 1024, 2048]),
            T("configs", [1, 2]),  # autotune list: no single value
            T("BLOCK_K", 64, editable=False),
            T("num_warps", 8),  # second launch site of a name: first wins
            {"name": "num_stages", "value": 3.0, "location": "kernel.py:9"},
            T("BLOCK", None, computed="block = launch_block(n_cols)"),  # computed, no run read it: still a knob
            T("alpha", 0.5),  # not an integer: a knob of a tuning session, no single move
        ]
    )
    assert knobs == [
        Knob("num_warps", 4, "kernel.py:57"),
        Knob("BLOCK_SIZE", 1024, None, (256, 512, 1024, 2048)),
        Knob("num_stages", 3, "kernel.py:9"),
        Knob("BLOCK", None, computed="block = launch_block(n_cols)"),
        Knob("alpha", 0.5),
    ]
    assert knobs[3].move(1) is None and knobs[4].move(-1) is None
    assert knobs[1].move(1) == 2048 and Knob("BLOCK_SIZE", 2048, None, (1024, 2048)).move(1) is None


def test_profiler_estimate_changes_the_order() -> None:
    kernel = fakes.summary("add_memory_bound").kernels[0]
    ev = [EvidenceItem(metric="m", value=1.0, source="x")]
    kernel.findings = [
        Finding(rule_id="a", symptom="s", confidence=Confidence.MEDIUM, evidence=ev, inference="i",
                action_categories=[ActionCategory.COALESCING]),
        Finding(rule_id="b", symptom="t", confidence=Confidence.MEDIUM, evidence=ev, inference="i",
                action_categories=[ActionCategory.SMEM_SWIZZLE_PADDING]),
    ]  # fmt: skip
    kernel.profiler_rules = []
    history = build_history([])
    assert rank(kernel, None, [], history).candidates[0].category is ActionCategory.COALESCING
    kernel.profiler_rules = [
        ProfilerRuleResult(rule_id="SharedMemoryConflicts", message="bank conflicts", estimated_speedup_pct=40.0)
    ]
    assert rank(kernel, None, [], history).candidates[0].category is ActionCategory.SMEM_SWIZZLE_PADDING


def test_guarded_stage_with_fake_wiki(ws: Workspace) -> None:
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import summary_of
    from kernelopt.stages.plan import run_plan

    fakes.install_summary(ws, 1, "add_memory_bound")
    ws.commit(["profiles"], "v1 profile")
    planner = RulePlanner({"wiki_search": fakes.FakeWiki(), "knobs": ADD_KNOBS})
    result = run_plan(ws, 1, planner, guard=RunGuard(ws), summary=summary_of(ws, 1), history=[])
    assert result.plan is not None and ws.plan_path(1).is_file()
    assert result.plan.parameters == {"BLOCK_SIZE": 2048}
    assert ws.is_clean()  # nothing tracked changed


def test_amd_summary_is_scoped_to_cdna(ws_root: Path) -> None:
    from kernelopt.evidence.model import BottleneckType, KernelEvidence, Metric, ProfileSummary, Vendor
    from kernelopt.evidence.summary import write_summary

    ws = make_ws(ws_root, "amd", "framework: triton\ngpu: MI300X\n")
    summary = ProfileSummary(
        vendor=Vendor.AMD,
        tool_used="rocprofv3 (PMC + ATT)",
        gpu="AMD Instinct MI300X",
        artifacts=["pmc/counters.csv"],
        kernels=[
            KernelEvidence(
                kernel_name="transpose_kernel",
                metrics={"duration_us": Metric(value=88.4, unit="us", source="rocprofv3 kernel trace")},
                bottleneck=BottleneckType.LATENCY_BOUND,
                findings=[
                    Finding(
                        rule_id="amd.lds_bank_conflicts",
                        symptom="lds_bank_conflicts",
                        confidence=Confidence.HIGH,
                        evidence=[
                            EvidenceItem(
                                metric="SQ_LDS_BANK_CONFLICT", value=1843200.0, unit="cycles", source="pmc/counters.csv"
                            )
                        ],
                        inference="LDS accesses serialize on bank conflicts",
                        action_categories=[ActionCategory.LDS_LAYOUT],
                    )
                ],
            )
        ],
    )
    write_summary(ws.profile_dir(1), summary)
    wiki = fakes.FakeWiki()
    out = RulePlanner({"wiki_search": wiki, "knobs": []}).plan(
        StageContext(workspace=ws, version=1, summary=summary, history=[])
    )
    assert {(c["arch"], c["vendor"]) for c in wiki.calls} == {("gfx942", "amd")}
    assert out.plan is not None and out.plan.action_category is ActionCategory.LDS_LAYOUT
    assert "wiki:amd-lds-padding" in out.plan.references
    assert "SQ_LDS_BANK_CONFLICT = 1843000 cycles" in out.plan.evidence[0]
    assert "nv-" not in out.plan.search_log[0].finding  # NVIDIA-only records never answer an AMD query


def test_no_citable_value_gives_no_plan(ws: Workspace) -> None:
    summary = fakes.summary("small_grid_latency")
    k = summary.kernels[0]
    k.metrics = {}
    k.profiler_rules = []
    for f in k.findings:
        f.evidence = [
            EvidenceItem(metric=e.metric, value=None, source=e.source, missing_reason="not collected")
            for e in f.evidence
        ]
    out = RulePlanner({"wiki_search": fakes.FakeWiki(), "knobs": SMALL_KNOBS}).plan(
        StageContext(workspace=ws, version=1, summary=summary, history=[])
    )
    assert out.plan is None and out.reason is not None and "no measured value in profiles/v1/summary.json" in out.reason
    assert not ws.plan_path(1).exists()
