"""y = A @ x (GEMV); the K mask is skipped when BLOCK_K divides K (EVEN_K, decided at the launch), the output
dtype a constexpr, and the sizes not specialized."""

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["M", "K"])
def _gemv(a_ptr, x_ptr, y_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
          EVEN_K: tl.constexpr, OUT_DTYPE: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        if EVEN_K:
            a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=rm[:, None] < M, other=0.0)
            x = tl.load(x_ptr + rk)
        else:
            a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K),
                        other=0.0)
            x = tl.load(x_ptr + rk, mask=rk < K, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1)
    tl.store(y_ptr + rm, acc.to(OUT_DTYPE), mask=rm < M)


def run(a, x):
    M, K = a.shape
    y = torch.empty(M, device=a.device, dtype=a.dtype)
    BLOCK_M = 32
    BLOCK_K = 32
    out_dtype = tl.float16 if a.dtype == torch.float16 else tl.float32
    _gemv[(triton.cdiv(M, BLOCK_M),)](
        a, x, y, M, K, a.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, EVEN_K=K % BLOCK_K == 0, OUT_DTYPE=out_dtype, num_warps=4,
    )
    return y
