"""Row sums, `ROWS = 4` rows a program, each row in one block of `BLOCK_N` columns, a heuristic's
`triton.next_power_of_2(args["n_cols"])`
(the softmax tutorial's one-block row, several rows a program), rows of at most 65536 columns: the tile
`(ROWS, BLOCK_N)` holds at most 4 x 65536 values, within Triton's 1048576."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK_N": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 65536, "one block a row"
    ROWS = 4
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(triton.cdiv(n_rows, ROWS),)](x, y, n_rows, n_cols, ROWS=ROWS)
    return y
