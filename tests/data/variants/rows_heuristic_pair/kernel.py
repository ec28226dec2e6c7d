"""Row sums of several rows a program: the row's block and the rows a program from the kernel's heuristics over two
arguments (`BLOCK_N` the row's power of two, `ROWS` a budget of 4096 values over it); rows of at most 4096."""

import torch
import triton
import triton.language as tl


@triton.heuristics(
    {
        "BLOCK_N": lambda args: triton.next_power_of_2(args["n_cols"]),
        "ROWS": lambda args: 4096 // triton.next_power_of_2(args["n_cols"]),
    }
)
@triton.jit
def rows_sum(x_ptr, y_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 4096
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    rows = 4096 // triton.next_power_of_2(n_cols)
    rows_sum[(triton.cdiv(n_rows, rows),)](x, y, n_rows, n_cols)
    return y
