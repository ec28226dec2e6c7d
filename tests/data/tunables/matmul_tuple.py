"""Matmul: tile sizes from a tuple assignment, a grouped ordering constant, literal launch options."""

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 128, 64, 32  # tile shape
GROUP_M = 8  # tiles per group along M (L2 reuse)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0) // GROUP_M * GROUP_M  # grouped ordering (a stub of it)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        pass
    tl.store(c_ptr + pid, acc)


def run(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)  # noqa: E731
    matmul_kernel[grid](
        a, b, c, M, N, K,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        GROUP_M=GROUP_M,
        num_stages=3, num_warps=8,
    )
    return c
