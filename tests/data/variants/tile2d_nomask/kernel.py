"""A 2-D scale of a matrix in tiles of BLOCK_M rows by BLOCK_N columns, a grid of (M // BLOCK_M, N // BLOCK_N)
programs and no masks: correct where BLOCK_M divides M and BLOCK_N divides N (the tiles of different sizes)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, 2.0 * x)


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M = 64
    BLOCK_N = 4
    scale_kernel[(M // BLOCK_M, N // BLOCK_N)](x, out, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
