"""A masked GEMM that multiplies float or int8 operands, as a quantized linear layer's kernel does: the accumulator
and the output int32 for int8 operands (`ACC = tl.int32`, chosen by the launcher from the input's dtype), float32
otherwise; literal tiles `BLOCK_M = BLOCK_N = 32`, `BLOCK_K = 32` (a dot of 8-bit operands needs K >= 32 on a GPU,
of 16- and 32-bit ones K >= 16). fp32 in the entries; int8 as a quantized model calls it."""

import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              ACC: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0)
        acc = tl.dot(a, b, acc, out_dtype=ACC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(a, b):
    M, K = a.shape
    N = b.shape[1]
    integer = not a.dtype.is_floating_point
    c = torch.empty((M, N), device=a.device, dtype=torch.int32 if integer else torch.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    mm_kernel[grid](a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, ACC=tl.int32 if integer else tl.float32)
    return c
