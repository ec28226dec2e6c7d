"""Each row scaled by its own factor, y[r, :] = x[r, :] * s[r]: a grid of (rows, column tiles), the column tiles
on the grid's second axis counted by floor (`(n_rows, n_cols // BLOCK)` beside `BLOCK = 1024`), no masks (rows a
multiple of 1024)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + row * n_cols + cols, x * s)


def run(x, s):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    assert n_cols % 1024 == 0, "rows a multiple of 1024"
    BLOCK = 1024
    row_scale[(n_rows, n_cols // BLOCK)](x, s, y, n_cols, BLOCK=BLOCK)
    return y
