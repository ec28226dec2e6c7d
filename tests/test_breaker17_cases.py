"""The seventeenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker17 is a public Triton kernel written for the trial in a form the first sixteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import triton_interpreted
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker17"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- the interpreter


@pytest.mark.timeout(120)
def test_d1_bf16_arithmetic_in_the_interpreter_is_the_gpu_s_not_its_bits() -> None:
    """Seen on 2026-12-06: unsloth_swiglu, Unsloth's SwiGLU (``f_row.to(g_row.dtype) * g_row`` of bf16 rows):
    V0 FAIL on the CPU, "output 0 contains NaN where the reference has none (19 of 4200 elements)": Triton 3.6's
    interpreter keeps a bf16 as its 16 bits (``np.uint16``) and multiplied, added, compared and exponentiated those
    bits (``tl.exp`` refuses bf16 itself, on a GPU too). bf16 operands are widened to fp32 exactly and each result rounded back to bf16 to nearest even, as a GPU's
    bf16 arithmetic rounds; a comparison of negative values is right and stays a boolean."""
    import torch

    with triton_interpreted():
        import triton
        import triton.language as tl

        @triton.jit
        def ops(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(x_ptr + offs)
            y = tl.load(y_ptr + offs)
            tl.store(out_ptr + offs, x * y)
            tl.store(out_ptr + N + offs, x + y)
            tl.store(out_ptr + 2 * N + offs, x - y)
            tl.store(out_ptr + 3 * N + offs, x / y)
            tl.store(out_ptr + 4 * N + offs, tl.maximum(x, y))
            tl.store(out_ptr + 5 * N + offs, tl.where(x < y, x, y))
            tl.store(out_ptr + 6 * N + offs, tl.fma(x, y, x))
            tl.store(out_ptr + 7 * N + offs, tl.full([N], 0.0, tl.bfloat16) + tl.sum(x, 0))

        g = torch.Generator().manual_seed(0)
        x = torch.randn(64, generator=g).to(torch.bfloat16)
        y = torch.randn(64, generator=g).to(torch.bfloat16)
        out = torch.empty(8 * 64, dtype=torch.bfloat16)
        ops[(1,)](x, y, out, N=64)
        got = out.reshape(8, 64)
        want = [x * y, x + y, x - y, x / y, torch.maximum(x, y), torch.where(x < y, x, y), None]
        for row, expect in enumerate(want[:-1]):
            torch.testing.assert_close(got[row], expect, rtol=0, atol=0, msg=f"row {row}")
        # a fused multiply-add rounds once (the GPU's fma.rn.bf16)
        torch.testing.assert_close(got[6], (x.float() * y.float() + x.float()).to(torch.bfloat16), rtol=0, atol=0)
        # a sum's order differs from torch's (a tree in the interpreter): within two bf16 steps of the exact sum
        torch.testing.assert_close(got[7].float(), x.float().sum().expand(64), rtol=2e-2, atol=5e-2)

        @triton.jit
        def reductions(x_ptr, out_ptr, idx_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)
            x = tl.load(x_ptr + offs)
            tl.store(out_ptr + offs, tl.full([N], 0.0, tl.bfloat16) + tl.max(x, 0))
            tl.store(out_ptr + N + offs, tl.full([N], 0.0, tl.bfloat16) + tl.min(x, 0))
            tl.store(out_ptr + 2 * N + offs, tl.cumsum(x, 0))
            tl.store(idx_ptr, tl.argmax(x, 0))

        neg = -x.abs()  # negative values: their bit patterns order backwards
        red, idx = torch.empty(3 * 64, dtype=torch.bfloat16), torch.empty(1, dtype=torch.int32)
        reductions[(1,)](neg, red, idx, N=64)
        assert red[0] == neg.max() and red[64] == neg.min() and int(idx) == int(neg.float().argmax()), (red, idx)
        torch.testing.assert_close(red[128:].float(), neg.float().cumsum(0), rtol=2e-2, atol=5e-2)
    _all_correct(DATA / "unsloth_swiglu", [{"B": 1, "S": 1, "D": 1}, {"B": 2, "S": 5, "D": 1025}])


# ------------------------------------------------------------------------------------- tables


@pytest.mark.timeout(180)
def test_d2_a_table_buckets_on_the_launching_function_s_value_not_the_entry_s_of_the_same_name(
    tmp_path: Path,
) -> None:
    """Seen on 2026-12-06: gems_argmax, FlagGems' argmax, whose whole-tensor path computes ``block_size =
    next_power_of_2(ceil(sqrt(M)))`` with ``M = inp.numel()`` (1200 .. 4641 at the entries), while the entries'
    own ``M`` is the dim path's row count (3 .. 13). ``tune`` wrote ``if M <= 13: block_size = 512`` and said "1.53x
    faster": a branch no entry's ``M`` reaches, the original kept everywhere. The table's bound is the value the
    launching function's name took where the kernel was launched (recorded by the evaluation), so the table written
    runs at the entries, and it is correct at sizes no entry names."""
    # the whole-tensor launch by name: since discovery17's l3 the dim path's heuristics are knobs, and tune's first
    written, note = _tune_edit(_copy("gems_argmax", tmp_path), {"BLOCK_SIZE": 512}, kernel="argmax_kernel_1")
    assert written is not None and "if M <= 4641:" in written and "block_size = 512" in written, (note, written)
    assert "up to 4641" in (note or ""), note
    _all_correct(tmp_path / "gems_argmax", [{"M": 7, "N": 301, "K": 3}, {"M": 1, "N": 1, "K": 1}])


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for four of the trial's kernels when its session picks these, checked on the GPU: Unsloth's
#: module-level block (both launches read it), FlagGems' heuristics module's BLOCK_M in a table over ``M`` (the dim
#: path, tune's first kernel since discovery17's l3; d2's whole-tensor table is the CPU test's), FBGEMM's list pinned with its prune wrapped, torchao's list of row groups
GPU_PICKS = {
    "unsloth_swiglu": {"BLOCK_SIZE": 2048},
    "gems_argmax": {"BLOCK_M": 16, "BLOCK_N": 8},  # the heuristics module's dict (discovery17's l3)
    "fbgemm_fp8_row": {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
    "ao_fp8_blockwise": {"NUM_GROUPS": 64},
    # the CUDA branch of its platform-selected block (discovery17's l2), and run()'s split count that sizes the buffer
    # (leftovers18's n2: written num_kv_splits = 16, right on the CPU at B=3,L=301,...,P=3 and B=1,L=3,...,P=1)
    "vllm_decode_att": {"BLOCK_N": 32, "NUM_KV_SPLITS": 16},
}

#: (folder, sizes) of the originals on the GPU: a small odd size (where its autotune list is short enough to compile
#: twice in the test's three minutes; FBGEMM's aligned: its ``tl.multiple_of(rm % M, ...)`` hints are misalign17's) and a
#: realistic one (256 MB - 1 GB a tensor); compiled for sm_90 on the CPU first (``compile_for_target``, 2026-12-06)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "unsloth_swiglu": [{"B": 1, "S": 3, "D": 5}, {"B": 2, "S": 8192, "D": 14336}],
    "gems_argmax": [{"M": 3, "N": 5, "K": 7}, {"M": 64, "N": 16384, "K": 128}],
    "vllm_decode_att": [
        {"B": 1, "L": 3, "H": 2, "KVH": 1, "D": 5, "DV": 7, "P": 1},
        {"B": 16, "L": 16384, "H": 32, "KVH": 8, "D": 128, "DV": 128, "P": 16},
    ],
    "fla_solve_tril": [{"B": 4, "T": 32768, "H": 16, "BT": 64}],  # T=37 and 70: the interpreter's
    "fbgemm_fp8_row": [{"M": 16, "N": 32, "K": 64}, {"M": 16384, "N": 16384, "K": 16384}],
    "ao_fp8_blockwise": [{"M": 32768, "K": 8192}],
    "tut_desc_persist": [{"M": 16384, "N": 8192, "K": 8192}],
    "sgl_draft_kv": [
        {"B": 2, "L": 3, "S": 2, "TOPK": 1, "P": 3},
        {"B": 64, "L": 32768, "S": 4, "TOPK": 4, "P": 4096},
    ],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included (FBGEMM's aligned), and a realistic one
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "unsloth_swiglu": [{"B": 3, "S": 5, "D": 1027}, {"B": 2, "S": 8192, "D": 14336}],
    "gems_argmax": [{"M": 7, "N": 301, "K": 3}, {"M": 64, "N": 16384, "K": 128}],
    "fbgemm_fp8_row": [{"M": 128, "N": 256, "K": 192}, {"M": 8192, "N": 16384, "K": 16384}],
    "ao_fp8_blockwise": [{"M": 77, "K": 384}, {"M": 32768, "K": 8192}],
    "vllm_decode_att": [
        {"B": 3, "L": 301, "H": 4, "KVH": 2, "D": 100, "DV": 72, "P": 3},
        {"B": 16, "L": 16384, "H": 32, "KVH": 8, "D": 128, "DV": 128, "P": 16},
    ],
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_seventeenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: Unsloth's bf16
    SwiGLU forward and backward through autograd, FlagGems' argmax both paths, vLLM's two-stage decode attention,
    fla's solve_tril, FBGEMM's fp8 row GEMM (exact fp8 products, fp32 sums, a bf16 output), torchao's blockwise fp8
    quantization, the descriptor persistent matmul, SGLang's draft page indices), each at 256 MB - 1 GB a tensor,
    and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    for name, shapes in GPU_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked)
    for name, shapes in GPU_WRITTEN_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=written[name])
