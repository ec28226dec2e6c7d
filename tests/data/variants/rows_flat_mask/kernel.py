"""A row-wise scale over tiles of `ROWS = 16` whole rows (`BLOCK_N = next_power_of_2(N)` columns), the index flat
and the mask flat too, `offs = rows[:, None] * N + cols[None, :]`, `mask = (cols[None, :] < N) & (offs < M * N)`
(a tile's rows past the last masked by the flat size), in int32: right where `M * N` stays below 2**31 and the
last tile's padded rows do too."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, w_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N + cols[None, :]
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
