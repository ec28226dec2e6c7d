"""Column sum of an (M, N) matrix: each program owns BLOCK_N columns and walks the rows BLOCK_M at a time."""

import torch
import triton
import triton.language as tl


@triton.jit
def colsum_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for m in range(0, M, BLOCK_M):
        rows = m + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < N)


def run(x):
    M, N = x.shape
    out = torch.empty(N, device=x.device, dtype=torch.float32)
    BLOCK_N = 32
    colsum_kernel[(triton.cdiv(N, BLOCK_N),)](x, out, M, N, x.stride(0), BLOCK_M=16, BLOCK_N=BLOCK_N, num_warps=4)
    return out
