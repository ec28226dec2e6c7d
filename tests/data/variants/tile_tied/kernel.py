"""tile2d_nomask's 2-D scale with the column tile computed in the kernel from the row tile, `BLOCK_N: tl.constexpr =
BLOCK_M // 16`, the grid `(M // BLOCK_M, N // (BLOCK_M // 16))`, no masks, `BLOCK_M = 64`: correct where 64 divides M
and 4 divides N."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, N, BLOCK_M: tl.constexpr):
    BLOCK_N: tl.constexpr = BLOCK_M // 16
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, 2.0 * x)


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M = 64
    scale_kernel[(M // BLOCK_M, N // (BLOCK_M // 16))](x, out, N, BLOCK_M=BLOCK_M)
    return out
