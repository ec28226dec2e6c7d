"""Two tile knobs with the same value, grid literals paired by the numerator's name."""

import triton
import triton.language as tl


@triton.jit
def mm(a, b, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pass


def run(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    mm[(triton.cdiv(M, 64) * triton.cdiv(N, 64),)](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def run_ambiguous(a, b, c):
    rows, K = a.shape
    cols = b.shape[1]
    mm[(triton.cdiv(rows, 64) * triton.cdiv(cols, 64),)](a, b, c, rows, cols, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c
