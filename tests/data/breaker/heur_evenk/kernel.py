"""Matrix-vector product y = A @ x; a heuristic skips the K mask when BLOCK_K divides K."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                EVEN_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        if EVEN_K:
            a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=rm[:, None] < M, other=0.0)
            x = tl.load(x_ptr + rk)
        else:
            a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :],
                        mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            x = tl.load(x_ptr + rk, mask=rk < K, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rm, acc, mask=rm < M)


def run(a, x):
    M, K = a.shape
    y = torch.empty(M, device=a.device, dtype=torch.float32)
    BLOCK_M = 16
    gemv_kernel[(triton.cdiv(M, BLOCK_M),)](a, x, y, M, K, a.stride(0), BLOCK_M=BLOCK_M, BLOCK_K=64)
    return y
