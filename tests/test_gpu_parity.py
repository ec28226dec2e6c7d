"""Where Triton's interpreter (``TRITON_INTERPRET=1``: CI, ``tune --device cpu``) and a GPU compile disagree
(docs/faults.md, "Interpreter and GPU disagree"). The interpreter ran a ``tl.dot`` with K = 4 or 8 and a launch of
``num_warps=6``, which a GPU compile refuses: ``tune --device cpu`` judged ``KSTEP=4`` candidates correct
(2026-12-05, 16 candidates, two of them). kernelopt's workers now refuse both on the CPU with the GPU's rule
(:mod:`kernelopt.harness.interpreter`); the cross-compile test checks those verdicts against Triton's own compile for
sm_90, which runs without a GPU."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from unittest import mock

import pytest

from kernelopt.harness.interpreter import dot_k_problem, launch_option_problems
from tests.conftest import load_fresh, triton_interpreted

DATA = Path(__file__).parent / "data" / "gpuparity"


def test_the_dot_rule_is_the_nvidia_backend_s() -> None:
    assert dot_k_problem(16, 32) is None and dot_k_problem(16, 16) is None and dot_k_problem(32, 8) is None
    assert "K >= 16" in (dot_k_problem(8, 32) or "") and "K >= 16" in (dot_k_problem(4, 16) or "")
    assert "K >= 32" in (dot_k_problem(16, 8) or "")


def test_num_warps_must_be_a_power_of_two_up_to_32() -> None:
    assert launch_option_problems({"num_warps": 8, "num_stages": 0}) == []
    assert launch_option_problems({}) == []
    for bad in (6, 3, 64):
        (line,) = launch_option_problems({"num_warps": bad})
        assert line.startswith(f"num_warps={bad} must be one of [1, 2, 4, 8, 16, 32] on a GPU")


@pytest.mark.timeout(120)
def test_the_interpreter_refuses_what_a_gpu_compile_refuses() -> None:
    import torch

    with triton_interpreted():
        dots = load_fresh(DATA / "dots.py", "_gpuparity_dots")
        assert dots.launch(16, torch.float32) < 1e-4
        assert dots.launch(32, torch.int8) == 0.0
        with pytest.raises(Exception, match=r"tl.dot with K = 8 \(32-bit operands\): a GPU compile needs K >= 16"):
            dots.launch(8, torch.float32)
        with pytest.raises(Exception, match=r"tl.dot with K = 16 \(8-bit operands\): a GPU compile needs K >= 32"):
            dots.launch(16, torch.int8)
        with pytest.raises(ValueError, match=r"dot_tile: num_warps=6 must be one of \[1, 2, 4, 8, 16, 32\] on a GPU"):
            dots.launch(16, torch.float32, num_warps=6)
        a, b, c = dots.operands(16, torch.float32)
        with pytest.raises(ValueError, match=r"num_warps=3 must be one of"):  # an autotune config's, too
            dots.dot_tile_tuned[(1,)](a, b, c, M=16, N=16, K=16)


def _compile_verdict(kernel: object, k: int, operand: str, num_warps: int) -> str | None:
    """Triton's own compile of ``kernel`` for sm_90 (no GPU needed): ``None`` when it compiles, else its error."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = {"a_ptr": f"*{operand}", "b_ptr": f"*{operand}", "c_ptr": "*fp32", "M": "constexpr", "N": "constexpr"}
    src = ASTSource(kernel, {**signature, "K": "constexpr"}, {"M": 16, "N": 16, "K": k})
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
    except Exception as exc:  # the compile's error is the verdict
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.mark.timeout(180)
def test_the_interpreter_s_verdicts_match_a_compile_for_sm_90(tmp_path: Path) -> None:
    """The same kernel source, interpreted with kernelopt's rules and compiled by Triton for an H100 (sm_90, no GPU
    needed: Triton compiles to a cubin on the CPU): each configuration passes in both or fails in both."""
    pytest.importorskip("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    import torch

    cases = [(8, torch.float32, "fp32", 4), (16, torch.float32, "fp32", 6), (16, torch.int8, "i8", 4)]
    passing = (16, torch.float32, "fp32", 4)
    with triton_interpreted():
        dots = load_fresh(DATA / "dots.py", "_gpuparity_dots_interp")
        interpreted = {}
        for k, dtype, _, warps in [*cases, passing]:
            try:
                dots.launch(k, dtype, num_warps=warps)
                interpreted[(k, str(dtype), warps)] = None
            except Exception as exc:  # the interpreter's error is the verdict
                interpreted[(k, str(dtype), warps)] = str(exc)
        # the same file as a GPU would load it: triton.jit reads TRITON_INTERPRET where it decorates
        with mock.patch.dict(os.environ):
            os.environ.pop("TRITON_INTERPRET")
            compiled = load_fresh(DATA / "dots.py", "_gpuparity_dots_compiled")
        for k, dtype, operand, warps in [*cases, passing]:
            gpu = _compile_verdict(compiled.dot_tile, k, operand, warps)
            cpu = interpreted[(k, str(dtype), warps)]
            assert (gpu is None) == (cpu is None), (k, dtype, warps, cpu, gpu)
    assert interpreted[(16, "torch.float32", 4)] is None  # the passing case ran: not every verdict a refusal


@pytest.mark.timeout(240)
def test_cpu_tune_never_judges_a_dot_k_a_gpu_refuses_correct(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tune --device cpu`` on a GEMM whose K step is a launch literal of no known family (its domain: 2..32 around
    its value 8, as written): the kernel as written and every candidate with K < 16 fail on the CPU as they fail to
    compile on a GPU; whatever is written has K >= 16."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = tmp_path / "kstep"
    shutil.copytree(DATA / "kstep", folder)
    out = tmp_path / "out"
    args = ["tune", str(folder), "--device", "cpu", "--budget", "6", "--repetitions", "2", "--out", str(out)]
    code = main(args)
    capsys.readouterr()
    record = next(out.rglob("record.jsonl"))
    results = [json.loads(x)["result"] for x in record.read_text().splitlines() if '"kind":"result"' in x]
    first = results[0]
    assert first["config"]["KSTEP"] == 8 and first["outcome"] != "ok"
    assert "a GPU compile needs K >= 16" in json.dumps(first)
    assert all(r["config"]["KSTEP"] >= 16 for r in results if r["outcome"] == "ok")
    written = (folder / "kernel.py").read_text()
    if code == 0 and "KSTEP=8)" not in written:
        assert any(f"KSTEP={k})" in written for k in (16, 32, 64))


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_a_gpu_refuses_what_the_interpreter_now_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On a CUDA GPU: the kernels the CPU refuses fail to compile and the ones it passes run correctly; and the
    kernel.py ``tune --device cpu`` writes for the K-step GEMM (kernel as written K = 8, which no GPU compiles)
    compiles and is correct at sizes SHAPES never names."""
    import torch

    from kernelopt.cli.app import main

    assert torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET", "0") in ("", "0")
    dots = load_fresh(DATA / "dots.py", "_gpuparity_dots_gpu")
    assert dots.launch(16, torch.float32, "cuda") < 1e-4
    assert dots.launch(32, torch.int8, "cuda") == 0.0
    for k, dtype, warps in ((8, torch.float32, 4), (16, torch.int8, 4), (16, torch.float32, 6)):
        with pytest.raises(Exception):  # Triton's compile errors share no class across versions
            dots.launch(k, dtype, "cuda", num_warps=warps)
    folder = tmp_path / "kstep"
    shutil.copytree(DATA / "kstep", folder)
    args = ["tune", str(folder), "--device", "cpu", "--budget", "6", "--repetitions", "2", "--out", str(tmp_path / "o")]
    assert main(args) == 0, capsys.readouterr().err
    written = (folder / "kernel.py").read_text()
    assert "KSTEP=8)" not in written, written
    kernel = load_fresh(folder / "kernel.py", "_gpuparity_kstep_gpu")
    for m, n, k in ((48, 40, 72), (200, 96, 33), (129, 257, 500)):
        a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        assert torch.allclose(kernel.run(a, b), a @ b, atol=1e-3, rtol=1e-3), (m, n, k)
