"""A kernel that fails its own correctness check as written is not tuned: the session ends after the round that
ran it, and ``tune`` says so in one line, exit 2, kernel.py unchanged. On the H100 (2026-12-05) an fp32 GEMM whose
``tl.dot`` multiplied in TF32 (Triton's default) spent its whole budget, 340 candidates and 170 s, on wrong
results and exited 1 saying nothing; the line's hint now names TF32 there."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from kernelopt.kernelsource import dots_default_precision

KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.5, mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    _scale[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    return y
"""

REFERENCE = """import torch

SHAPES = [{"n": 300}, {"n": 1000}]


def get_inputs(n=300, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x * 2.0
"""


@pytest.fixture(autouse=True)
def _interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.mark.timeout(240)
def test_tune_stops_on_a_kernel_wrong_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kernelopt.cli.app import main

    folder = tmp_path / "scale"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "reference.py").write_text(REFERENCE)
    out = tmp_path / "out"
    args = ["tune", str(folder), "--device", "cpu", "--budget", "12", "--repetitions", "2", "--out", str(out)]
    assert main(args) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "kernelopt: error" in line]
    assert len(err) == 1, err
    assert "kernel.py as written fails its own correctness check, so nothing was tuned: " in err[0]
    assert "differs from the reference" in err[0] and "kernel.py unchanged" in err[0]
    assert (folder / "kernel.py").read_text() == KERNEL
    record = next(out.rglob("record.jsonl"))
    results = [json.loads(x)["result"] for x in record.read_text().splitlines() if '"kind":"result"' in x]
    assert results[0]["config"] == {"BLOCK": 64} and results[0]["outcome"] == "wrong_result"
    assert results[0]["error_class"] == "Mismatch"  # the class that decides its hints (harness/hints.py)
    assert len(results) <= 4  # the round that ran the kernel as written, never the budget of 12


def test_a_tl_dot_left_to_its_default_precision_is_found(tmp_path: Path) -> None:
    kernel = tmp_path / "kernel.py"
    kernel.write_text("import triton.language as tl\n\ndef k(a, b, acc):\n    return tl.dot(a, b, acc)\n")
    assert dots_default_precision(kernel)
    kernel.write_text('import triton.language as tl\n\ndef k(a, b):\n    return tl.dot(a, b, input_precision="ieee")\n')
    assert not dots_default_precision(kernel)
    kernel.write_text("import torch\n\ndef k(a, b):\n    return torch.dot(a, b)\n")  # not Triton's
    assert not dots_default_precision(kernel)
    kernel.write_text("def k(:\n")
    assert not dots_default_precision(kernel)


def test_the_hint_names_tf32_on_a_gpu_only(tmp_path: Path) -> None:
    from kernelopt.tuning.dot_precision import current_failed_hint

    kernel = tmp_path / "kernel.py"
    kernel.write_text("import triton.language as tl\n\ndef k(a, b, acc):\n    return tl.dot(a, b, acc)\n")
    gpu = SimpleNamespace(interpreted=False, kernel_py=kernel, dtype_hint="float32")
    cpu = SimpleNamespace(interpreted=True, kernel_py=kernel, dtype_hint="float32")
    assert 'input_precision="ieee"' in current_failed_hint(gpu) and "TF32" in current_failed_hint(gpu)  # type: ignore[arg-type]
    assert "`kernelopt validate`" in current_failed_hint(gpu)  # type: ignore[arg-type]
    assert "TF32" not in current_failed_hint(cpu) and "ATOL/RTOL" in current_failed_hint(cpu)  # type: ignore[arg-type]


def test_int8_operands_are_told_of_tf32_by_neither_line(tmp_path: Path) -> None:
    """The TF32 line and the hint of a kernel failing its own check read the dot's operands in one place
    (review13): int8 ones (what reference.py's tensors hold in breaker11's scaled_mm; no card dtype names it) are
    multiplied in no TF32, where the hint read an unnamed dtype as fp32 and told an int8 GEMM of TF32."""
    from kernelopt.tuning.dot_precision import current_failed_hint, tf32_line

    kernel = tmp_path / "kernel.py"
    kernel.write_text("import triton.language as tl\n\ndef k(a, b, acc):\n    return tl.dot(a, b, acc)\n")
    gpu = SimpleNamespace(interpreted=False, kernel_py=kernel, dtype_hint="int8")
    cpu = SimpleNamespace(interpreted=True, kernel_py=kernel, dtype_hint="int8", rtol=1e-5)
    assert "TF32" not in current_failed_hint(gpu) and "ATOL/RTOL" in current_failed_hint(gpu)  # type: ignore[arg-type]
    assert tf32_line(cpu) is None  # type: ignore[arg-type]
    fp32 = SimpleNamespace(interpreted=True, kernel_py=kernel, dtype_hint="float32", rtol=1e-5)
    assert tf32_line(fp32) is not None  # type: ignore[arg-type]


def test_an_fp8_gemm_on_a_gpu_is_told_of_its_tensor_cores_sums_not_of_tf32() -> None:
    """breaker11's fp8_block_gemm (DeepSeek-V3's block-scaled GEMM) failed its own 1e-4 RTOL as written on an H100
    (2026-12-06) and was told its tl.dot multiplies fp32 operands in TF32: its operands are fp8, read from
    reference.py's tensors (no task card), and an input precision changes nothing there."""
    from kernelopt.tuning.dot_precision import FP8_DOT_LINE, current_failed_hint

    data = Path(__file__).parent / "data" / "breaker11" / "fp8_block_gemm"
    gpu = SimpleNamespace(
        interpreted=False, kernel_py=data / "kernel.py", reference_py=data / "reference.py", dtype_hint=None,
        device="cpu",
    )  # fmt: skip
    hint = current_failed_hint(gpu)  # type: ignore[arg-type]
    assert hint.startswith(FP8_DOT_LINE) and "TF32" not in hint and "ATOL near 1e-3" in hint, hint
    bf16 = SimpleNamespace(interpreted=False, kernel_py=data / "kernel.py", dtype_hint="bfloat16")
    assert "TF32" not in current_failed_hint(bf16) and "ATOL/RTOL" in current_failed_hint(bf16)  # type: ignore[arg-type]
