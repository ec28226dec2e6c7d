"""v159: v124's row-wise scale (rows_flat_mask) with its flat mask against the buffer's length, passed as one
argument: `mask = (cols[None, :] < N) & (offs < numel)` with `numel = x.numel()`, the index `offs = rows[:, None] * N
+ cols[None, :]` in int32: a tile's rows past the last are masked by the flat length only while their index stays
below 2**31, and a tile of 128 rows pads 96 past M = 10526880 where the original's 16 pad none (v124's wrap)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, w_ptr, y_ptr, M, N, numel, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]
    mask = (cols[None, :] < N) & (offs < numel)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + offs, x * w[None, :], mask=mask)


def run(x, w):
    M, N = x.shape
    y = torch.empty_like(x)
    ROWS = 16
    BLOCK_N = triton.next_power_of_2(N)
    row_scale[(triton.cdiv(M, ROWS),)](x, w, y, M, N, x.numel(), ROWS=ROWS, BLOCK_N=BLOCK_N)
    return y
