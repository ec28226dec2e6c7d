"""The rule-based implementer: every category it claims, its refusals, and Stage 3 under the guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.backends.protocol import Implementer, ImplementOutcome, StageContext
from kernelopt.backends.registry import implementer_class
from kernelopt.backends.rules import KNOB_CATEGORIES, RuleImplementer, supported_categories
from kernelopt.errors import UsageError
from kernelopt.harness.model import CorrectnessReport
from kernelopt.memory.model import CorrectnessStatus
from kernelopt.stages.implement import stage_context
from kernelopt.tunables import discover

from .backends_support import implement, make_plan, make_ws

# category -> (kernel fixture, plan parameters, expected knob changes)
CASES = {
    "block_size": ("add_module_constant.py", {"BLOCK_SIZE": 2048}, {"BLOCK_SIZE": (1024, 2048)}),
    "num_warps": ("add_launch_literal.py", {"num_warps": 8}, {"num_warps": (4, 8)}),
    "software_pipelining": ("matmul_tuple.py", {"num_stages": "+1"}, {"num_stages": (3, 4)}),
    "tiling": ("matmul_tuple.py", {"BLOCK_K": 16}, {"BLOCK_K": (32, 16)}),  # 64 needs 144 KiB at fp32 (p12)
    "vectorized_access": ("cuda_marked.py", {"VEC": 2}, {"VEC": (4, 2)}),
    "l2_rasterization": ("matmul_tuple.py", {"GROUP_M": "x2"}, {"GROUP_M": (8, 16)}),
    "split_k": ("amd_splitk.py", {"SPLIT_K": 4}, {"SPLIT_K": (2, 4)}),
    "persistent_kernel": ("amd_splitk.py", {"NUM_SMS": 264}, {"NUM_SMS": (132, 264)}),
    "wave_occupancy": ("amd_splitk.py", {"waves_per_eu": 1}, {"waves_per_eu": (2, 1)}),
    "mfma_use": ("amd_splitk.py", {"matrix_instr_nonkdim": 32}, {"matrix_instr_nonkdim": (16, 32)}),
    "occupancy": ("add_launch_literal.py", {"num_warps": 2}, {"num_warps": (4, 2)}),
    "register_pressure": ("matmul_tuple.py", {"BLOCK_N": "/2"}, {"BLOCK_N": (64, 32)}),
}


#: A task card whose GPU and dtype hold the autotune lists' 128 x 256 x 64 tiles at one more stage: with no GPU named,
#: a planned edit is held to the smallest shared memory of the NVIDIA spec sheets at fp32 (p12), which they exceed.
_FITS = {"gpu": "H100", "dtype": "fp16"}


def _ctx(ws, plan) -> StageContext:
    return stage_context(ws, plan.version, plan=plan)


def test_cases_cover_every_claimed_category() -> None:
    assert {c.value for c in supported_categories()} == set(CASES) == {c.value for c in KNOB_CATEGORIES}


@pytest.mark.parametrize("category", sorted(CASES))
def test_each_claimed_category_moves_exactly_its_knob(category: str, ws_root: Path) -> None:
    kernel, params, expected = CASES[category]
    ws = make_ws(ws_root, kernel)
    old = ws.kernel_py.read_text()
    before = {t.key: t.value for t in discover(ws.kernel_py)}
    out = RuleImplementer().implement(_ctx(ws, make_plan(category, params)))
    assert out.error is None, out.error
    assert out.changed and out.knob_changes == expected
    assert out.description.startswith(f"{category}: ")
    after = {t.key: t.value for t in discover(ws.kernel_py)}
    moved = {k for k in before if before[k] != after[k]}
    assert len(moved) == 1  # exactly the planned knob, nothing else
    new = ws.kernel_py.read_text()
    changed_lines = [a for a, b in zip(old.splitlines(), new.splitlines(), strict=True) if a != b]
    assert len(changed_lines) == 1 and len(old) - len(new) in (-1, 0, 1)


def test_registry_builds_the_rules_implementer() -> None:
    impl = implementer_class("rules")(None)
    assert isinstance(impl, Implementer) and impl.name == "rules"


@pytest.mark.parametrize(
    ("category", "kernel", "params", "targets", "message"),
    [
        ("coalescing", "add_launch_literal.py", {}, [], "is a code change, not a knob move"),
        ("fusion", "add_launch_literal.py", {"num_warps": 8}, None, "use --implementer agent-cli or llm-api"),
        ("num_warps", "add_launch_literal.py", {"BLOCK_SIZE": 2048}, None, "moved by block_size, not by"),
        ("num_warps", "add_launch_literal.py", {"num_wraps": 8}, None, "no tunable named 'num_wraps'"),
        ("num_warps", "add_launch_literal.py", {"num_warps": 3}, None, "must be one of"),
        ("num_warps", "add_launch_literal.py", {"num_warps": 4}, None, "does nothing"),
        ("block_size", "grid_refused.py", {"BLOCK": 2048}, None, "cannot be edited safely: grid literal 1024"),
        ("tiling", "matmul_tuple.py", {}, [], "names no knob for 'tiling'; candidates in kernel.py: BLOCK_K"),
        ("occupancy", "matmul_tuple.py", {}, [], "needs the knob and its new value"),
    ],
)
def test_refusals_leave_kernel_unchanged(category, kernel, params, targets, message, ws_root: Path) -> None:
    ws = make_ws(ws_root, kernel)
    old = ws.kernel_py.read_bytes()
    out = RuleImplementer().implement(_ctx(ws, make_plan(category, params, targets)))
    assert not out.changed and out.error is not None and message in out.error
    assert ws.kernel_py.read_bytes() == old


def test_default_move_from_targets_or_single_candidate(ws_root: Path) -> None:
    ws = make_ws(ws_root, "matmul_tuple.py")
    out = RuleImplementer().implement(_ctx(ws, make_plan("software_pipelining", {}, ["num_stages"])))
    assert out.knob_changes == {"num_stages": (3, 4)}
    # one candidate knob for the category and no target: the default move (one legal step up)
    out = RuleImplementer().implement(_ctx(ws, make_plan("l2_rasterization", {}, [])))
    assert out.knob_changes == {"GROUP_M": (8, 9)}


def test_no_plan_is_an_error(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    out = RuleImplementer().implement(stage_context(ws, 1))
    assert out.error == "no plan to implement"


def test_resource_limits_from_the_task_card(ws_root: Path) -> None:
    ws = make_ws(ws_root, "matmul_tuple.py", card={"gpu": "h200", "dtype": "bf16"})
    out = RuleImplementer().implement(_ctx(ws, make_plan("tiling", {"BLOCK_K": 512})))
    assert out.error and "estimated shared memory" in out.error and "per SM" in out.error
    # the same move passes when resource checks are off
    out = RuleImplementer({"check_resources": False}).implement(_ctx(ws, make_plan("tiling", {"BLOCK_K": 512})))
    assert out.knob_changes == {"BLOCK_K": (32, 512)}


def test_bad_option_is_a_usage_error(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    with pytest.raises(UsageError, match="unknown option 'colour'"):
        RuleImplementer({"colour": "red"}).implement(_ctx(ws, make_plan()))


def test_profiled_kernel_limits_a_shared_knob_name(ws_root: Path) -> None:
    from kernelopt.evidence.model import KernelEvidence, ProfileSummary, Vendor

    ws = make_ws(ws_root, "matmul_autotune.py", card=_FITS)
    ctx = _ctx(ws, make_plan("software_pipelining", {"num_stages": "+1"}))
    ctx.summary = ProfileSummary(
        vendor=Vendor.NVIDIA, tool_used="ncu", kernels=[KernelEvidence(kernel_name="grouped_kernel")]
    )
    out = RuleImplementer().implement(ctx)
    assert set(out.knob_changes) == {"grouped_kernel.configs[0].num_stages", "grouped_kernel.configs[1].num_stages"}


# -- Stage 3 under the guard, with the correctness check injected ---------------------------------


def verdict(passed: bool, message: str) -> CorrectnessReport:
    status = CorrectnessStatus.PASS if passed else CorrectnessStatus.FAIL
    return CorrectnessReport(passed=passed, status=status, rel_err=1e-7 if passed else 0.3, message=message)


def test_run_implement_checks_correctness_at_once(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    seen = []

    def check(w):
        seen.append(w.kernel_py.read_text())
        return verdict(True, "2/2 shapes within tolerance")

    report = implement(_ctx(ws, make_plan()), RuleImplementer(), check=check)
    assert report.ok and report.correctness is not None and report.correctness.passed
    assert "num_warps=8" in seen[0]  # the check saw the edited kernel
    assert "-                     num_warps=4)" in report.diff and "+                     num_warps=8)" in report.diff


def test_run_implement_reports_a_failing_check_and_restores_the_kernel(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    kernel = ws.kernel_py.read_bytes()
    report = implement(_ctx(ws, make_plan()), RuleImplementer(), check=lambda w: verdict(False, "rel_err 0.3"))
    assert not report.ok and report.reason == "correctness FAIL: rel_err 0.3"
    assert report.pitfalls[0].error_type == "correctness_fail"
    assert ws.kernel_py.read_bytes() == kernel


def test_run_implement_without_a_check(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    report = implement(_ctx(ws, make_plan()), RuleImplementer())
    assert report.ok and report.correctness is None and "num_warps=8" in ws.kernel_py.read_text()


class _Scribbler:
    """A misbehaving implementer: edits kernel.py and also the reference and README."""

    name = "scribbler"

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        ws = ctx.workspace
        ws.kernel_py.write_text(ws.kernel_py.read_text() + "\n# edited\n")
        ws.reference_py.write_text("def reference(x, y):\n    return x * 0\n")
        (ws.root / "scratch.txt").write_text("x")
        return ImplementOutcome(changed=True, description="scribbled")


class _Breaker:
    name = "breaker"

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        ctx.workspace.kernel_py.write_text("def run(x, y):\n    return x +\n")
        return ImplementOutcome(changed=True, description="broke it")


def test_guard_reverts_writes_outside_the_allowance(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    ref, kernel = ws.reference_py.read_bytes(), ws.kernel_py.read_bytes()
    report = implement(_ctx(ws, make_plan()), _Scribbler(), check=lambda w: verdict(True, "ok"))
    assert not report.ok and report.error_type == "write_violation"
    assert set(report.violations) == {"reference.py (modified)", "scratch.txt (added)"}
    assert "outside its allowance" in (report.reason or "")
    assert ws.reference_py.read_bytes() == ref and not (ws.root / "scratch.txt").exists()
    assert ws.kernel_py.read_bytes() == kernel  # the failed stage's own edit is undone too


def test_kernel_that_does_not_parse_fails_before_the_check(ws_root: Path) -> None:
    ws = make_ws(ws_root)
    called = []
    report = implement(_ctx(ws, make_plan()), _Breaker(), check=lambda w: called.append(1))
    assert report.reason == "kernel.py does not parse: line 2: invalid syntax" and not called and not report.ok


def test_aux_files_named_by_the_plan_are_allowed() -> None:
    from kernelopt.stagenames import Stage
    from kernelopt.stages.allowance import aux_files_of, editable_files

    plan = make_plan("tiling", {"BLOCK_K": 64}, targets=["BLOCK_K", "csrc/tile.cuh:12", "reference.py", "../x.py"])
    assert aux_files_of(plan) == ["csrc/tile.cuh"]
    assert editable_files(Stage.IMPLEMENT, 1, aux_files_of(plan)) == ["kernel.py", "csrc/tile.cuh"]
    assert editable_files(Stage.PLAN, 1) == ["plans/v1_plan.md"]


def test_relative_move_for_knobs_with_several_values() -> None:
    from kernelopt.backends.rules import relative_move

    from .backends_support import TUNABLES

    ts = discover(TUNABLES / "matmul_autotune.py")
    stages = [t for t in ts if t.kernel == "matmul_kernel" and t.name == "num_stages"]  # 3 and 4
    assert relative_move(stages, 4, 3) == "+1" and relative_move(stages, 2, 3) == "-1"
    block_m = [t for t in ts if t.kernel == "matmul_kernel" and t.name == "BLOCK_M"]  # 128 and 64
    assert relative_move(block_m, 256, 128) == "x2" and relative_move(block_m, 32, 64) == "/2"
    assert relative_move(block_m, 96, 64) == "+32"  # not a power-of-two ratio: a delta (then refused as illegal)
    assert relative_move(block_m, 256, 100) == 256  # 'before' is not a current value: left as asked
    assert relative_move(block_m[:1], 256, 128) == 256  # one site: absolute stays absolute
    assert relative_move(stages, "x2", 3) == "x2"


def test_plan_with_current_values_moves_every_autotune_config(ws_root: Path) -> None:
    """Integration with the planning package's Plan (it records the knob's value before the move)."""
    from kernelopt.planning.plan import Plan

    if "current_values" not in Plan.model_fields:
        pytest.skip("this Plan model has no current_values (the planning package adds it)")
    ws = make_ws(ws_root, "matmul_autotune.py", card=_FITS)
    plan = make_plan("software_pipelining", {"num_stages": 4}).model_copy(update={"current_values": {"num_stages": 3}})
    ctx = _ctx(ws, plan)
    from kernelopt.evidence.model import KernelEvidence, ProfileSummary, Vendor

    ctx.summary = ProfileSummary(
        vendor=Vendor.NVIDIA, tool_used="ncu", kernels=[KernelEvidence(kernel_name="matmul_kernel")]
    )
    out = RuleImplementer().implement(ctx)
    assert out.knob_changes == {
        "matmul_kernel.configs[0].num_stages": (3, 4),
        "matmul_kernel.configs[1].num_stages": (4, 5),
    }
