"""small11: three leftovers of breaker11's trial (docs/faults.md, "small11"): the dtype of an int8 GEMM, what `tune`
says it wrote for a knob no table can hold, and fp8_block_gemm's quantization block searched as a knob."""

from __future__ import annotations

import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data" / "breaker11"


def test_s1_an_int8_gemm_is_not_called_fp32_nor_told_of_tf32_and_its_tiles_are_sized_at_1_byte(tmp_path: Path) -> None:
    """vLLM's int8 ``scaled_mm``: ``init`` inferred ``dtype: fp32`` from its fp32 scales and output (int8 was not
    counted), the portable fit sized its tiles at 4 B an element, and ``tune`` printed the TF32 line for int8
    operands. Its int8 operands now count: no card dtype inferred (said why), 1 B an element, no TF32 line; the fp8
    GEMM's operands are fp8 (no TF32 line either), and an fp32 GEMM at an fp32 tolerance still gets it."""
    from kernelopt.harness.infer import dominant_dtype, infer_dtype
    from kernelopt.tunables.knobs import ResourceLimits
    from kernelopt.tuning.folder import operands_dtype, tf32_line
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
