"""Row sums, `ROWS = 2` rows a program, each row one block of `BLOCK_N = triton.next_power_of_2(n_cols)` columns, the
tile held to 65536 values by the kernel's own `tl.static_assert(ROWS * BLOCK_N <= 65536)` (a register budget the
author set), rows of at most 32768 columns: 2 x 32768 at most, within the budget at every size the original takes."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(ROWS * BLOCK_N <= 65536, "a tile of at most 65536 values")
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 32768, "one block a row"
    BLOCK_N = triton.next_power_of_2(n_cols)
    ROWS = 2
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(triton.cdiv(n_rows, ROWS),)](x, y, n_rows, n_cols, ROWS=ROWS, BLOCK_N=BLOCK_N)
    return y
