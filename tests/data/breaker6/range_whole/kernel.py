"""range_stages without its EVEN_K heuristic: K comes in whole blocks of 64 (asserted), so the K loads of the
``tl.range(0, K, BLOCK_K, num_stages=NUM_STAGES)`` loop carry no mask (the rows do)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _matvec(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=NUM_STAGES):
        cols = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rmask[:, None], other=0.0)
        xv = tl.load(x_ptr + cols)
        acc += tl.sum(a * xv[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rmask)


def run(a, x):
    M, K = a.shape
    assert K % 64 == 0, "K in whole blocks of 64"
    y = torch.empty(M, device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16),)
    _matvec[grid](a, x, y, M, K, BLOCK_M=16, BLOCK_K=64, NUM_STAGES=3, num_warps=4)
    return y
