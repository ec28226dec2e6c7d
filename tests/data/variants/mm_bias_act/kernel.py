"""Masked GEMM (tests/data/breaker/mm_autotune, its tiles at the launch) with an epilogue added: a second kernel
adds a bias row and applies a leaky ReLU over the flat output, with a block of its own."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bias_act_kernel(c_ptr, bias_ptr, n_elements, N, EPI_BLOCK: tl.constexpr):
    offs = tl.program_id(0) * EPI_BLOCK + tl.arange(0, EPI_BLOCK)
    mask = offs < n_elements
    v = tl.load(c_ptr + offs, mask=mask, other=0.0) + tl.load(bias_ptr + offs % N, mask=mask, other=0.0)
    tl.store(c_ptr + offs, tl.where(v > 0, v, 0.01 * v), mask=mask)


def run(a, b, bias):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, num_warps=4)
    EPI_BLOCK = 64
    bias_act_kernel[(triton.cdiv(M * N, EPI_BLOCK),)](c, bias, M * N, N, EPI_BLOCK=EPI_BLOCK, num_warps=4)
    return c
