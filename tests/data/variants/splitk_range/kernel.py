"""A split-K GEMV, y = x @ w: each program sums one of SPLIT_K=4 splits of K in steps of BLOCK_K=16 and adds its
partial sums into a zeroed y with `tl.atomic_add`; K a multiple of 64, so the loads along K carry no mask."""

import torch
import triton
import triton.language as tl


@triton.jit
def gemv_splitk(x_ptr, w_ptr, y_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_per = K // SPLIT_K
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k in range(pid_k * k_per, (pid_k + 1) * k_per, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        w = tl.load(w_ptr + rk[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        x = tl.load(x_ptr + rk)
        acc += tl.sum(w * x[:, None], axis=0)
    tl.atomic_add(y_ptr + rn, acc, mask=rn < N)


def run(x, w):
    K, N = w.shape
    assert K % 64 == 0, "K must be a multiple of 64"
    y = torch.zeros(N, device=x.device, dtype=torch.float32)
    gemv_splitk[(triton.cdiv(N, 32), 4)](x, w, y, N, K, BLOCK_N=32, BLOCK_K=16, SPLIT_K=4)
    return y
