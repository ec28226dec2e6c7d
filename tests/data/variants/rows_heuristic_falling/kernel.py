"""Row sums of short rows packed several a program: one block of `BLOCK_N = 1024` columns a row at the launch (rows of
at most 1024 columns, asserted), the rows a program from the kernel's heuristic over the row's power of two, `ROWS =
max(1, 1024 // triton.next_power_of_2(args["n_cols"]))` (falling as the rows grow), the grid a `lambda META:` of it.
The tile `(ROWS, BLOCK_N)` is largest at the shortest rows: 1024 x 1024 values at one column, Triton's limit."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"ROWS": lambda args: max(1, 1024 // triton.next_power_of_2(args["n_cols"]))})
@triton.jit
def rows_sum(x_ptr, y_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 1024
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    grid = lambda META: (triton.cdiv(n_rows, META["ROWS"]),)  # noqa: E731
    rows_sum[grid](x, y, n_rows, n_cols, BLOCK_N=1024)
    return y
