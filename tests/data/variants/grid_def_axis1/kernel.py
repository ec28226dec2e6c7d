"""Each row scaled by its own factor, y[r, :] = x[r, :] * s[r]: a grid of (rows, column tiles) a function of the
launcher returns, the column tiles on its second axis (`def grid(meta): return (n_rows, triton.cdiv(n_cols,
meta["BLOCK"]))` beside `BLOCK=1024`), each tile masked."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + row * n_cols + cols, x * s, mask=mask)


def run(x, s):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)

    def grid(meta):
        return (n_rows, triton.cdiv(n_cols, meta["BLOCK"]))

    row_scale[grid](x, s, y, n_cols, BLOCK=1024)
    return y
