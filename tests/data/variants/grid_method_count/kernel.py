"""Each row scaled by its own factor, y[r, :] = x[r, :] * s[r]: a grid of (rows, column tiles), launched by a
class whose method counts the column tiles on the grid's second axis (`self._num_blocks(n_cols, BLOCK)`, a
`triton.cdiv`, beside `BLOCK = 1024`), each tile masked."""

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


class _RowScale:
    def _num_blocks(self, n, block):
        return triton.cdiv(n, block)

    def __call__(self, x, s):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK = 1024
        n_blocks = self._num_blocks(n_cols, BLOCK)
        row_scale[(n_rows, n_blocks)](x, s, y, n_cols, BLOCK=BLOCK)
        return y


def run(x, s):
    return _RowScale()(x, s)
