"""Matrix-vector product y = A @ x, BLOCK_M rows a program, the K loop written with tl.range and a loop-level
pipelining depth (num_stages=NUM_STAGES); @triton.heuristics sets EVEN_K when BLOCK_K divides K, and then the K
loads carry no mask."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def _matvec(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr,
            EVEN_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=NUM_STAGES):
        cols = k + tl.arange(0, BLOCK_K)
        if EVEN_K:
            a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rmask[:, None], other=0.0)
            xv = tl.load(x_ptr + cols)
        else:
            kmask = cols < K
            a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rmask[:, None] & kmask[None, :], other=0.0)
            xv = tl.load(x_ptr + cols, mask=kmask, other=0.0)
        acc += tl.sum(a * xv[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rmask)


def run(a, x):
    M, K = a.shape
    y = torch.empty(M, device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16),)
    _matvec[grid](a, x, y, M, K, BLOCK_M=16, BLOCK_K=256, NUM_STAGES=1, num_warps=4, num_stages=5)
    return y
