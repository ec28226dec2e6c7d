"""A Triton GEMM without masks (issue 32): correct only when the tiles divide M and N. SHAPES has 64 and 48:
a 32- or 64-wide tile reads and writes past the 48 x 48 matrices, so only 16 may be written."""

import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, 16)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, 16):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def run(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))  # noqa: E731
    mm_kernel[grid](a, b, c, M, N, K, BM=16, BN=16)
    return c
