"""v160: v124's row-wise scale (rows_flat_mask) with its index built in two statements, `row_start = rows[:, None] *
N` then `offs = row_start + cols[None, :]`: a tile of `ROWS` x `BLOCK_N = next_power_of_2(N)` values whose sides
no one statement lays together (read as no tile), and an index in int32 masked by the flat size `offs < M * N`. A
tile of 128 rows holds more than Triton's 1048576 values from N = 8193 (BLOCK_N 16384), where the original's 16 hold
262144, and pads 96 rows past M = 10526880 (v124's wrap)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, w_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    row_start = rows[:, None] * N
    offs = row_start + cols[None, :]
    mask = (cols[None, :] < N) & (offs < M * N)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + offs, x * w[None, :], mask=mask)


def run(x, w):
    M, N = x.shape
    y = torch.empty_like(x)
    ROWS = 16
    BLOCK_N = triton.next_power_of_2(N)
    row_scale[(triton.cdiv(M, ROWS),)](x, w, y, M, N, ROWS=ROWS, BLOCK_N=BLOCK_N)
    return y
