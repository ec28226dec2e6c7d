"""y = x @ W (a row vector times a K x N matrix), split along K: the first launch writes one partial row per K
slice, the second sums the slices; its block is the first launch's grid rounded up to a power of two."""

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_rows(x_ptr, w_ptr, part_ptr, K, N, stride_wk, SPLIT_K: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_k = tl.program_id(0)
    pid_n = tl.program_id(1)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * SPLIT_K + tl.arange(0, SPLIT_K)
    x = tl.load(x_ptr + rk, mask=rk < K, other=0.0)
    w = tl.load(w_ptr + rk[:, None] * stride_wk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    tl.store(part_ptr + pid_k * N + rn, tl.sum(x[:, None] * w, axis=0), mask=rn < N)


@triton.jit
def _sum_slices(part_ptr, y_ptr, n_slices, N, BLOCK_S: tl.constexpr, BLOCK_N: tl.constexpr):
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rs = tl.arange(0, BLOCK_S)
    p = tl.load(part_ptr + rs[:, None] * N + rn[None, :], mask=(rs[:, None] < n_slices) & (rn[None, :] < N), other=0.0)
    tl.store(y_ptr + rn, tl.sum(p, axis=0), mask=rn < N)


def run(x, w):
    K, N = w.shape
    SPLIT_K = 64
    BLOCK_N = 32
    grid1 = (triton.cdiv(K, SPLIT_K), triton.cdiv(N, BLOCK_N))
    part = torch.empty((grid1[0], N), device=x.device, dtype=torch.float32)
    _partial_rows[grid1](x, w, part, K, N, w.stride(0), SPLIT_K=SPLIT_K, BLOCK_N=BLOCK_N)
    y = torch.empty(N, device=x.device, dtype=torch.float32)
    BLOCK_S = triton.next_power_of_2(grid1[0])
    _sum_slices[(triton.cdiv(N, 64),)](part, y, grid1[0], N, BLOCK_S=BLOCK_S, BLOCK_N=64)
    return y
