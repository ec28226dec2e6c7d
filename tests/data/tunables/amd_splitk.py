"""Split-K GEMM with a persistent grid, launched with ROCm Triton options."""

import triton
import triton.language as tl

SPLIT_K = 2
NUM_SMS = 132  # kernelopt: tunable


@triton.jit
def splitk_kernel(a, b, c, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  SPLIT_K: tl.constexpr, NUM_SMS: tl.constexpr):
    pass


def run(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (min(NUM_SMS, triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])), SPLIT_K)  # noqa: E731
    splitk_kernel[grid](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, SPLIT_K=SPLIT_K, NUM_SMS=NUM_SMS,
                        num_warps=4, num_stages=2, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=1)
    return c
