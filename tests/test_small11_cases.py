"""small11: three leftovers of breaker11's trial (docs/faults.md, "small11"): the dtype of an int8 GEMM, what `tune`
says it wrote for a knob no table can hold, and fp8_block_gemm's quantization block searched as a knob."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "breaker11"


def test_s1_an_int8_gemm_is_not_called_fp32_nor_told_of_tf32_and_its_tiles_are_sized_at_1_byte(tmp_path: Path) -> None:
    """vLLM's int8 ``scaled_mm``: ``init`` inferred ``dtype: fp32`` from its fp32 scales and output (int8 was not
    counted), the portable fit sized its tiles at 4 B an element, and ``tune`` printed the TF32 line for int8
    operands. Its int8 operands now count: no card dtype inferred (said why), 1 B an element, no TF32 line; the fp8
    GEMM's operands are fp8 (no TF32 line either), and an fp32 GEMM at an fp32 tolerance still gets it."""
    from kernelopt.harness.infer import dominant_dtype, infer_dtype
    from kernelopt.tunables.knobs import ResourceLimits
    from kernelopt.tuning.dot_precision import operands_dtype, tf32_line
    from kernelopt.tuning.problem import Problem

    assert dominant_dtype({"torch.int8": 2 * 64, "torch.float32": 64 + 2}) == "int8"
    assert dominant_dtype({"torch.int64": 10, "torch.float32": 1}) == "fp32"  # indices are not operands
    found = infer_dtype(DATA / "scaled_mm" / "reference.py", device="cpu")
    assert found.value is None and "mostly int8" in found.line()
    problem = Problem.from_folder(DATA / "scaled_mm", device="cpu")
    assert operands_dtype(problem, None) == "int8"
    assert ResourceLimits.for_target(None, operands_dtype(problem, None)).elem_bytes == 1
    assert ResourceLimits.for_target(None, None).elem_bytes == 4  # unknown operands: the widest a dot takes
    assert tf32_line(problem) is None  # RTOL = 1e-5, a default-precision tl.dot: but int8 operands
    fp8 = Problem.from_folder(DATA / "fp8_block_gemm", device="cpu")
    assert operands_dtype(fp8, None) == "fp8" and tf32_line(fp8) is None
    folder = tmp_path / "gemm"  # an fp32 GEMM at RTOL 1e-4: the line stays
    shutil.copytree(Path(__file__).parent / "data" / "gpuparity" / "gemm", folder)
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace("RTOL = 1e-2", "RTOL = 1e-4"))
    line = tf32_line(Problem.from_folder(folder, device="cpu"))
    assert line is not None and "multiplies fp32 operands in TF32" in line


def test_s2_a_cap_no_table_can_hold_is_said_as_one_configuration_never_as_a_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """breaker11's liger_tvd (``MAX_FUSED_SIZE = 65536 // 4``, a module-level cap): ``tune`` said "a per-bucket
    table, each shape its own best" and then "the current configuration is the best found; kernel.py left
    unchanged". The session's line now says no table can hold the cap and that one configuration is judged; a
    kernel whose knob is computed from a size named by the entries still gets its table line."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import TuneRequest, prepare_folder, size_table_unheld
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape, unheld

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = prepare_folder(TuneRequest(folder=DATA / "liger_tvd", device="cpu"))
    labels = [s.label() for s in prepared.shapes]

    def timed(cap: int, *us: float) -> Result:
        by = dict(zip(labels, us, strict=True))
        return Result(config={"MAX_FUSED_SIZE": cap}, outcome=Outcome.OK, latency_us=sum(us), latency_us_by_shape=by)

    results = [timed(16384, 10.0, 50.0, 10.0), timed(1024, 30.0, 45.0, 30.0)]  # each shape's own best differs
    choice = choose(per_shape(results, results, results[0].config))
    assert choice.kind is ChoiceKind.TABLE and choice.reason.endswith("a per-bucket table, each shape its own best")
    why = size_table_unheld(prepared, results[0].config)
    assert why == "MAX_FUSED_SIZE is not computed from a size (a literal or a cap), which no table can hold"
    line = unheld(choice, why).reason
    assert "each shape its own best" not in line and line.endswith(
        "each shape's own best needs a per-bucket table, but MAX_FUSED_SIZE is not computed from a size (a literal "
        "or a cap), which no table can hold: one configuration is judged against the current one"
    )
    gemm = prepare_folder(TuneRequest(folder=DATA / "scaled_mm", device="cpu"))  # tiles computed from M: a table
    tiles = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256}
    assert size_table_unheld(gemm, tiles) is None


GRAINED = """
import triton
import triton.language as tl


@triton.jit
def scaled(x_ptr, s_ptr, y_ptr, n, BLOCK: tl.constexpr, QBLOCK: tl.constexpr, TILE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    scale = tl.load(s_ptr + offs // QBLOCK, mask=offs < n)
    lanes = tl.arange(0, TILE) // TILE  # a tile dividing its own span: no grain
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale + lanes.sum(0), mask=offs < n)


def run(x, s):
    y = x.new_empty(x.shape)
    scaled[(triton.cdiv(x.numel(), 256),)](x, s, y, x.numel(), BLOCK=256, QBLOCK=128, TILE=64)
    return y
"""


def test_s3_fp8_gemm_s_k_tile_that_picks_the_scales_is_held_and_the_other_tiles_stay_knobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DeepSeek-V3's fp8 GEMM (breaker11's fp8_block_gemm): ``BLOCK_SIZE_K`` is 128 in all 36 configs and the kernel
    reads it as the quantization block (``b_s_ptr + (offs_n // BLOCK_SIZE_K) * k``); the search moved it 16..256 and
    5 of 6 CPU candidates failed their check. A constexpr that divides an index of another block is held now
    (``tunables.grains``), at a launch and in an autotune list; a tile stays a knob, and one dividing its own span
    is no grain."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.grains import grain_sizes
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = prepare_folder(TuneRequest(folder=DATA / "fp8_block_gemm", device="cpu"))
    assert tuple(prepared.space.names) == ("BLOCK_SIZE_M", "BLOCK_SIZE_N")  # was BLOCK_SIZE_K too, 16..256
    k = [t for t in prepared.tunables if t.name == "BLOCK_SIZE_K"]
    assert k and all(t.semantic and "((offs_n // BLOCK_SIZE_K))" in (t.refused_reason or "") for t in k)
    by_name = {t.name: t for t in discover_source(GRAINED)}
    assert by_name["QBLOCK"].semantic and "a grain of what the kernel reads" in (by_name["QBLOCK"].refused_reason or "")
    assert not by_name["BLOCK"].semantic and not by_name["TILE"].semantic
    import libcst as cst

    kernel = next(
        n for n in cst.parse_module(GRAINED).body if isinstance(n, cst.FunctionDef) and n.name.value == "scaled"
    )
    assert list(grain_sizes(kernel)) == ["QBLOCK"]
