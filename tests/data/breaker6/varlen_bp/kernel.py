"""varlen_whole through block pointers, as fla writes its varlen kernels: ``tl.make_block_ptr(x + bos * D, (T, D),
...)`` with ``T = eos - bos`` loaded from ``cu_seqlens``, ``boundary_check=(1,)`` (the columns; the tokens come in
whole chunks of 16), ``tl.advance`` over ``range(0, tl.cdiv(T, BLOCK_T))``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _seq_mean(x_ptr, cu_seqlens, out_ptr, D, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    i_b = tl.program_id(0)
    i_d = tl.program_id(1)
    bos = tl.load(cu_seqlens + i_b).to(tl.int32)
    eos = tl.load(cu_seqlens + i_b + 1).to(tl.int32)
    T = eos - bos
    p_x = tl.make_block_ptr(x_ptr + bos * D, (T, D), (D, 1), (0, i_d * BLOCK_D), (BLOCK_T, BLOCK_D), (1, 0))
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for _ in range(0, tl.cdiv(T, BLOCK_T)):
        x = tl.load(p_x, boundary_check=(1,))
        acc += tl.sum(x.to(tl.float32), axis=0)
        p_x = tl.advance(p_x, (BLOCK_T, 0))
    cols = i_d * BLOCK_D + tl.arange(0, BLOCK_D)
    tl.store(out_ptr + i_b * D + cols, acc / tl.maximum(T, 1).to(tl.float32), mask=cols < D)


def run(x, cu_seqlens):
    B = cu_seqlens.numel() - 1
    D = x.shape[1]
    out = torch.empty(B, D, device=x.device, dtype=torch.float32)
    grid = (B, triton.cdiv(D, 64))
    _seq_mean[grid](x, cu_seqlens, out, D, BLOCK_T=16, BLOCK_D=64, num_warps=4)
    return out
