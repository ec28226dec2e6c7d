"""Pattern-search step sizes of the rule planner: expansion after a gain, contraction after an overshoot,
and moves into configurations that cannot fit the GPU left out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.history import MAX_STRIDE, History, KnobMove, Outcome
from kernelopt.planning.knobs import KnobFamily, step
from kernelopt.planning.rules import discover_knobs, resource_check
from kernelopt.workspace import Workspace

from .data.planning import fakes
from .test_planning_rules import make_ws, run_planner


def _move(knob: str, before: float, after: float, outcome: Outcome) -> KnobMove:
    return KnobMove("v1", ActionCategory.BLOCK_SIZE, knob, before, after, outcome)


def test_step_ratio_and_range_edge() -> None:
    assert step(KnobFamily.BLOCK, 128, 1, 4) == 512
    assert step(KnobFamily.BLOCK, 512, -1, 8) == 64
    assert step(KnobFamily.TILE_M, 64, 1, 8) == 256  # stops at the top of the legal range
    assert step(KnobFamily.TILE_M, 256, 1, 8) is None  # already there
    assert step(KnobFamily.NUM_STAGES, 2, 1, 8) == 3  # linear knobs move by one
    with pytest.raises(ValueError, match="power of two"):
        step(KnobFamily.BLOCK, 128, 1, 3)


def test_stride_expands_after_gains_only() -> None:
    h = History()
    assert h.stride("BLOCK_SIZE", 128, 1) == 2
    h.moves.append(_move("BLOCK_SIZE", 128, 256, Outcome.IMPROVED))
    assert h.stride("BLOCK_SIZE", 256, 1) == 4
    assert h.stride("BLOCK_SIZE", 256, -1) == 2  # not the direction that paid
    assert h.stride("BLOCK_SIZE", 512, 1) == 2  # the knob is no longer where the gain left it
    h.moves.append(_move("BLOCK_SIZE", 256, 1024, Outcome.IMPROVED))
    assert h.stride("BLOCK_SIZE", 1024, 1) == 8
    h.moves.append(_move("BLOCK_SIZE", 1024, 8192, Outcome.IMPROVED))
    assert h.stride("BLOCK_SIZE", 8192, 1) == MAX_STRIDE
    h.moves.append(_move("BLOCK_SIZE", 8192, 65536, Outcome.NEUTRAL))
    assert h.stride("BLOCK_SIZE", 65536, 1) == 2


def test_overshoot_bans_only_as_far_or_farther() -> None:
    h = History(moves=[_move("BLOCK_SIZE", 1024, 8192, Outcome.REGRESSED)])
    assert h.banned("BLOCK_SIZE", 1024, 1, 2048) is None  # the contraction step
    assert h.banned("BLOCK_SIZE", 1024, 1, 4096) is None
    assert h.banned("BLOCK_SIZE", 1024, 1, 8192) is not None
    assert h.banned("BLOCK_SIZE", 2048, 1, 16384) is not None
    assert h.banned("BLOCK_SIZE", 1024, 1) is not None  # the direction as a whole
    assert h.banned("BLOCK_SIZE", 512, 1, 1024) is None  # below where the bad move started
    assert h.banned("BLOCK_SIZE", 1024, -1, 512) is None


def test_resource_check_uses_the_gpu_sheet() -> None:
    fits = resource_check("H200", "fp16")
    assert fits is not None
    ok = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3}
    assert fits(ok) == []
    too_big = {**ok, "BLOCK_M": 256, "BLOCK_N": 256, "num_stages": 4}
    assert any("shared memory" in p for p in fits(too_big))
    unknown = resource_check("no such GPU", None)  # only the limits that need no spec sheet
    assert unknown is not None and unknown({**ok, "num_warps": 64}) != []


def test_planner_leaves_out_a_move_that_cannot_fit(ws_root: Path) -> None:
    ws = make_ws(ws_root, front="framework: triton\ngpu: H200\ndtype: fp16\n")
    # 128 x 128 x 128 fp16 tiles in 4 stages: 4 * (128*128 + 128*128) * 2 B = 256 KiB > 228 KiB per SM
    knobs = [
        {"name": "BLOCK_M", "value": 128},
        {"name": "BLOCK_N", "value": 128},
        {"name": "BLOCK_K", "value": 128},
        {"name": "num_warps", "value": 8},
        {"name": "num_stages", "value": 4},
    ]
    plan = run_planner(ws, "spilling_matmul", knobs, knob_only=True).plan
    assert plan is not None
    log = " ".join(e.actionability for e in plan.search_log)
    assert "num_warps 8 -> 16 cannot fit: estimated shared memory 262144 B" in log  # Stage 3 would refuse it
    assert plan.parameters == {"BLOCK_M": 64}  # 4 * (64*128 + 128*128) * 2 B = 192 KiB fits
    fits = resource_check("H200", "fp16")
    assert fits is not None and fits({k["name"]: k["value"] for k in knobs} | {"BLOCK_M": 64}) == []


# -- a synthetic landscape: how many iterations the expanding search needs ---------------------------


def _run_loop(
    ws: Workspace, latency: Callable[[dict[str, int]], float], start: dict[str, int], iterations: int
) -> tuple[list[dict[str, int]], dict[str, int]]:
    """Plan, gate (2 % noise band) and keep or revert, as the loop does; return the configs and the final one."""
    history: list[IterationRecord] = []
    values = dict(start)
    tried = []
    for n in range(1, iterations + 1):
        out = run_planner(
            ws,
            "add_memory_bound",
            [{"name": k, "value": v} for k, v in values.items()],
            history,
            version=n,
            knob_only=True,
        )
        if out.plan is None:
            break
        new = values | {k: int(v) for k, v in out.plan.parameters.items()}
        tried.append(new)
        speedup = latency(values) / latency(new)
        verdict = "improvement" if speedup > 1.02 else "regression" if speedup < 0.98 else "no significant change"
        changes = {k: [values[k], int(v)] for k, v in out.plan.parameters.items()}
        history.append(
            fakes.record(
                n,
                out.plan.action_category.value,
                changes,
                quality_gate={"result": "PASS"},
                performance={"comparison_with_previous": {"speedup": speedup, "verdict": verdict}},
            )
        )
        if verdict != "regression":
            values = new
    return tried, values


def test_expanding_search_reaches_a_far_optimum_in_few_iterations(ws_root: Path) -> None:
    ws = make_ws(ws_root)

    # A row kernel whose block should cover a 4096-column row: latency falls with the block up to 4096,
    # rises past it (masked lanes, register pressure); num_warps matters little.
    def latency(c: dict[str, int]) -> float:
        b = c["BLOCK_SIZE"]
        base = {128: 10.0, 256: 6.5, 512: 4.6, 1024: 3.4, 2048: 2.8, 4096: 2.5, 8192: 3.9}.get(b, 9.0)
        return base * (1.0 if c["num_warps"] in (4, 8) else 1.1)

    tried, final = _run_loop(ws, latency, {"BLOCK_SIZE": 128, "num_warps": 4}, iterations=6)
    best = min(latency({"BLOCK_SIZE": b, "num_warps": 4}) for b in (128, 256, 512, 1024, 2048, 4096, 8192))
    assert latency(final) <= 1.05 * best, (tried, final)
    # 128 -> 256 -> 1024 (expanding) -> 8192 (overshoot, reverted) -> 2048 -> 4096 (contracting):
    # the optimum in five plans; single doublings would need five kept versions on a landscape with no
    # overshoot and cannot go faster on a farther optimum.
    assert [c["BLOCK_SIZE"] for c in tried][:5] == [256, 1024, 8192, 2048, 4096]


def test_one_d_block_past_the_register_file_is_not_planned(ws_root: Path) -> None:
    from kernelopt.tunables import ResourceLimits, resource_problems

    limits = ResourceLimits.for_gpu("H200", "fp16")
    # 2 live fp32 tensors x 16384 elements / 128 threads = 256 registers per thread > 255
    assert any(
        "1-D block of 128 elements per thread" in p
        for p in resource_problems({"BLOCK_SIZE": 16384, "num_warps": 4}, limits)
    )
    assert resource_problems({"BLOCK_SIZE": 16384, "num_warps": 8}, limits) == []
    assert resource_problems({"BLOCK_SIZE": 8192, "num_warps": 4}, limits) == []
    # layernorm on the H200: 512 -> 2048 improved; the x8 expansion (16384) would spill, x4 (8192) is next
    ws = make_ws(ws_root, front="framework: triton\ngpu: H200\ndtype: fp16\n")
    improved = fakes.record(
        2,
        "vectorized_access",
        {"BLOCK_SIZE": [512, 2048]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"speedup": 1.25, "verdict": "improvement"}},
    )
    knobs = [{"name": "BLOCK_SIZE", "value": 2048}, {"name": "num_warps", "value": 4}]
    plan = run_planner(ws, "add_memory_bound", knobs, [improved], version=3, knob_only=True).plan
    assert plan is not None and plan.parameters == {"BLOCK_SIZE": 8192}


COMPUTED_WARPS_KERNEL = """import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x):
    y = x.clone()
    n = x.numel()
    nw = 4 if n < 4096 else 16
    add_kernel[(n,)](x, y, n, BLOCK_SIZE=BLOCK_VALUE, num_warps=nw)
    return y
"""


def test_a_computed_num_warps_is_unknown_not_trittons_default(ws_root: Path) -> None:
    # num_warps=nw with nw computed (Triton's softmax tutorial picks it from BLOCK_SIZE) is not the default
    # 4: with 16 warps a block of 16384 holds 32 elements per thread. Neither Stage 3 nor the planner may
    # refuse the move on a register estimate made with a guessed warp count.
    from kernelopt.tunables import ResourceLimits, apply_source

    limits = ResourceLimits.for_gpu("H200", "fp16")
    source = COMPUTED_WARPS_KERNEL.replace("BLOCK_VALUE", "8192")
    edited = apply_source(source, {"BLOCK_SIZE": 16384}, limits=limits)
    assert "BLOCK_SIZE=16384" in edited.new_source

    ws = make_ws(ws_root, front="framework: triton\ngpu: H200\ndtype: fp16\n")
    ws.kernel_py.write_text(COMPUTED_WARPS_KERNEL.replace("BLOCK_VALUE", "2048"))
    improved = fakes.record(
        2,
        "vectorized_access",
        {"BLOCK_SIZE": [512, 2048]},
        quality_gate={"result": "PASS"},
        performance={"comparison_with_previous": {"speedup": 1.25, "verdict": "improvement"}},
    )
    plan = run_planner(ws, "add_memory_bound", None, [improved], version=3, knob_only=True).plan
    assert plan is not None and plan.parameters == {"BLOCK_SIZE": 16384}  # the x8 expansion is not refused


def test_onchip_bound_with_spills_does_not_grow_tiles() -> None:
    # Spilled registers live in local memory, served by L1: an L1-bound kernel that spills is not
    # answered by larger tiles (more registers, more spills); without spills larger tiles are the answer.
    from kernelopt.evidence.model import BottleneckType
    from kernelopt.evidence.symptoms import Symptom
    from kernelopt.planning.knobs import Knob
    from kernelopt.planning.ranking import knob_moves

    knobs = [Knob("BLOCK_M", 128), Knob("BLOCK_N", 128), Knob("BLOCK_K", 32)]
    onchip = [Symptom.ONCHIP_BANDWIDTH_BOUND.value]
    grown = knob_moves(ActionCategory.TILING, knobs, onchip, BottleneckType.MEMORY_BOUND)
    assert grown and all(new > k.value for k, new in grown)
    spilling = [*onchip, Symptom.REGISTER_SPILLS.value]
    moves = knob_moves(ActionCategory.TILING, knobs, spilling, BottleneckType.MEMORY_BOUND)
    assert moves and all(new < k.value for k, new in moves)


def test_cuda_block_constant_is_judged_like_stage_3_judges_it(tmp_path: Path) -> None:
    # A CUDA kernel's marked constants (BLOCK_SIZE elements, THREADS per block) belong to no Triton launch:
    # Stage 3 applies BLOCK_SIZE 16384 -> 32768 without a resource check. The planner asks the same
    # function Stage 3 uses (apply_source with the GPU's limits), so it agrees; the pooled estimate of
    # resource_check (used only for knobs injected without a source) would assume 4 warps and refuse it.
    from kernelopt.planning.rules import stage3_check
    from kernelopt.tunables import ResourceLimits, apply_source

    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        "BLOCK_SIZE = 16384  # kernelopt: tunable\n"
        "THREADS = 1024  # kernelopt: tunable\n"
        "\n\ndef run(x):\n    return x\n"
    )
    limits = ResourceLimits.for_gpu("H200", "fp32")
    apply_source(kernel.read_text(), {"BLOCK_SIZE": 32768}, filename="kernel.py", limits=limits)  # Stage 3 agrees
    fits = stage3_check(kernel, discover_knobs(kernel)[0] or [], "H200", "fp32")
    assert fits is not None and fits({"BLOCK_SIZE": 32768, "THREADS": 1024}) == []
    pooled = resource_check("H200", "fp32")
    assert pooled is not None and pooled({"BLOCK_SIZE": 32768, "THREADS": 1024}) != []


def test_stage3_check_refuses_what_stage_3_refuses() -> None:
    from kernelopt.planning.rules import stage3_check

    examples = Path(__file__).resolve().parents[1] / "examples"
    layernorm = examples / "layernorm" / "kernel.py"
    fits = stage3_check(layernorm, discover_knobs(layernorm)[0] or [], "H200", "fp16")
    assert fits is not None
    assert fits({"BLOCK_SIZE": 8192, "num_warps": 4, "num_stages": 1}) == []
    assert any("cannot fit" in p for p in fits({"BLOCK_SIZE": 16384, "num_warps": 4, "num_stages": 1}))
    matmul = examples / "matmul" / "kernel.py"
    mm = stage3_check(matmul, discover_knobs(matmul)[0] or [], "H200", "fp16")
    assert mm is not None
    too_big = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 1, "num_warps": 4, "num_stages": 4}
    assert any("shared memory" in p for p in mm(too_big))


def test_l2_group_does_not_expand_past_its_one_jump() -> None:
    h = History(moves=[KnobMove("v1", ActionCategory.L2_RASTERIZATION, "GROUP_M", 1, 8, Outcome.IMPROVED)])
    assert h.stride("GROUP_M", 8, 1) == 2  # 8 -> 16 next, not 8 -> 64
