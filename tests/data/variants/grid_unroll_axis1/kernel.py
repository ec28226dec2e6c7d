"""Each row scaled by its own factor, y[r, :] = x[r, :] * s[r]: a grid of (rows, column tiles), each program
`UNROLL = 4` masked blocks of `BLOCK = 256` unrolled by `tl.static_range`, the column tiles on the grid's second
axis (`(n_rows, triton.cdiv(n_cols, BLOCK * UNROLL))`)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    row = tl.program_id(0)
    s = tl.load(s_ptr + row)
    for i in tl.static_range(UNROLL):
        cols = (tl.program_id(1) * UNROLL + i) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, x * s, mask=mask)


def run(x, s):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK = 256
    UNROLL = 4
    row_scale[(n_rows, triton.cdiv(n_cols, BLOCK * UNROLL))](x, s, y, n_cols, BLOCK=BLOCK, UNROLL=UNROLL)
    return y
