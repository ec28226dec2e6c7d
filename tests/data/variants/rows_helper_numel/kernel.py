"""v102's row sums with the row's block computed by a module helper, `BLOCK_N = row_block(n_cols)` with `def
row_block(n_cols): assert n_cols <= 65536; return triton.next_power_of_2(n_cols)`, `ROWS = 4`: the tile
`(ROWS, BLOCK_N)` within Triton's 1048576 values at every size the original takes."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def row_block(n_cols):
    assert n_cols <= 65536, "one block a row"
    return triton.next_power_of_2(n_cols)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK_N = row_block(n_cols)
    ROWS = 4
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(triton.cdiv(n_rows, ROWS),)](x, y, n_rows, n_cols, ROWS=ROWS, BLOCK_N=BLOCK_N)
    return y
