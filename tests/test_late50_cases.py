"""late50: what breaker29's trial left (docs/faults.md, "breaker29's leftovers (late50, 2026-12-07)")."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "breaker29"


def test_l200_an_int4_gemm_s_tiles_are_sized_at_the_dot_s_float32_operands(tmp_path: Path) -> None:
    """breaker29's int4_mm loads uint8 codes (reference.py's tensors are mostly int8, so no card dtype) and multiplies
    them and its float16 activations in float32 (``a.to(tl.float32)``, ``w = (code.to(tl.float32) - zero) * scale``):
    its tiles were sized at 1 B an element, admitting tiles four times the shared memory a GPU has. The dot's casts
    now count: fp32, 4 B; a dot whose operands are not cast keeps the dtype named (or probed)."""
    from kernelopt.kernelsource import dot_operand_casts
    from kernelopt.tunables.knobs import ResourceLimits, resource_problems
    from kernelopt.tuning.dot_precision import operands_dtype
    from kernelopt.tuning.problem import Problem

    problem = Problem.from_folder(DATA / "int4_mm", device="cpu")
    assert dot_operand_casts(problem.kernel_py) == ["float32", "float32"]
    assert operands_dtype(problem, "int8") == "fp32"  # the probe's word for the reference's tensors
    limits = ResourceLimits.for_target(None, operands_dtype(problem, "int8"))
    assert limits.elem_bytes == 4
    tile = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_stages": 3, "num_warps": 4}  # 192 KiB at 4 B, 48 at 1
    assert resource_problems(tile, limits) and not resource_problems(tile, ResourceLimits.for_target(None, "int8"))
    plain = tmp_path / "kernel.py"  # operands as loaded: nothing read from the text, the named dtype stays
    plain.write_text(
        "import triton.language as tl\n\n\ndef k(A, B):\n    a = tl.load(A)\n    b = tl.load(B)\n"
        "    acc = tl.dot(a, b.to(tl.float16))\n"
    )
    assert dot_operand_casts(plain) == ["float16"]
    assert operands_dtype(problem.model_copy(update={"kernel_py": plain}), "bf16") == "bf16"
    assert operands_dtype(problem.model_copy(update={"kernel_py": plain}), "fp8") == "fp16"


@pytest.mark.timeout(60)
def test_l201_a_session_whose_every_candidate_ran_past_its_limit_is_the_machine_s_not_the_action_s(
    ws_root: Path,
) -> None:
    """breaker29's q96: ln_bwd's ``optimize`` under a load of 14, every candidate "no reply within 60 s", the kernel as
    written among them; its line said so, but the record's lesson read "failed as planned: do not repeat it
    unchanged" and the planner did not tune that launch again. Such a session is now its own error type: the lesson
    says how to give more time, and the next version times it again."""
    from types import SimpleNamespace

    from kernelopt.actions import SEARCH_LIMIT_SHORT
    from kernelopt.backends.launch_tuning import apply_best
    from kernelopt.backends.protocol import StageContext
    from kernelopt.backends.rules import RulePlanner
    from kernelopt.loop.record import _lesson
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, PitfallAndFix
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason

    from .data.planning import fakes
    from .test_tuning_rejected import _session_record, _v0

    why = "on the SHAPES entry M=37,N=100: checking and timing: no reply within 60 s"
    configs = [{"ROWS": r} for r in (8, 2, 32)]
    result = SessionResult(
        best_config=None, best_latency_us=None, current_config=configs[0], current_latency_us=None,
        results=[Result(config=c, outcome=Outcome.RUN_TIMEOUT, reason=why) for c in configs], retimed=[],
        evaluations=3, served=0, budget=24, space_size=10, wall_s=388.2, stop=StopReason.WALL_TIME, strategy="local",
    )  # fmt: skip
    prepared = SimpleNamespace(space=SimpleNamespace(launch="launch _ln_bwd_rows (kernel.py:75)"),
                               problem=SimpleNamespace(kernel_py=Path("kernel.py")))  # fmt: skip
    outcome = apply_best(SimpleNamespace(result=result, judgement=None, prepared=prepared))  # type: ignore[arg-type]
    assert outcome.limit_short and not outcome.changed and not outcome.noisy and not outcome.no_gain
    wrong = [
        r.model_copy(update={"outcome": Outcome.WRONG_RESULT}) if i == 0 else r for i, r in enumerate(result.results)
    ]
    other = apply_best(SimpleNamespace(result=result.model_copy(update={"results": wrong}), judgement=None,
                                       prepared=prepared))  # type: ignore[arg-type]  # fmt: skip
    assert not other.limit_short  # the kernel as written did run: the candidates' own failures
    lesson = _lesson(SEARCH_LIMIT_SHORT, " (autotune)", planned=True)
    assert "do not repeat" not in lesson and "optimize -I bench_timeout_s=SECONDS" in lesson

    ws, v0 = _v0(ws_root)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    first = planner.plan(StageContext(workspace=ws, version=1, summary=cpu_timing_summary(ws, 1), history=[v0]))
    assert first.plan is not None  # v1's plan: the session the record below is of
    v1 = _session_record(1, chosen=None, gate=GateResult.FAIL, reason=outcome.error or "")
    v1.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_LIMIT_SHORT, error_message=outcome.error or "")]
    ws.memory.write(v1)
    again = planner.plan(StageContext(workspace=ws, version=2, summary=cpu_timing_summary(ws, 2), history=[v0, v1]))
    assert again.plan is not None, again.reason
    assert again.plan.retrying == ["v1"] and again.plan.excluding == []


def test_l202_rows_a_program_is_a_launch_configuration_knob_by_the_name_rule() -> None:
    """breaker29's ln_bwd: ``ROWS_PER_PROG = 8`` (a band of rows a program, passed as ``ROWS``) was listed by
    ``tunables`` with no category, so no plan but the launch's joint search could move it. The name rule gives rows a
    program the block-size and occupancy categories (upper case only: a lower-case ``rows`` is the problem's size);
    a ``ROWS`` a ``tl.arange`` spans (breaker5's swiglu_meta) keeps its tile's rule."""
    from kernelopt.actions import ActionCategory as AC
    from kernelopt.planning.knobs import may_move
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.knobs import knob_rule

    found = {t.key: t for t in discover_source((DATA / "ln_bwd" / "kernel.py").read_text(), "kernel.py")}
    rows = found["ROWS_PER_PROG"]
    assert rows.categories == [AC.BLOCK_SIZE, AC.OCCUPANCY] and rows.value == 8
    assert may_move(AC.OCCUPANCY, "ROWS", tuple(rows.categories))
    assert knob_rule("rows") is None and knob_rule("n_rows") is None and knob_rule("ROWS_PER_PROGRAM") is not None
    swiglu = Path(__file__).parent / "data" / "breaker5" / "swiglu_meta" / "kernel.py"
    tile = {t.key: t for t in discover_source(swiglu.read_text(), "kernel.py")}["_swiglu_fwd:ROWS"]
    assert AC.BLOCK_SIZE in tile.categories and tile.legality.power_of_two
