"""Sort each row ascending in one block of next_power_of_2(n_cols) lanes. Rows are a power of two long, so no lane
is ever masked out (the fill is never read)."""

import torch
import triton
import triton.language as tl


@triton.jit
def sort_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, tl.sort(x, 0), mask=cols < n_cols)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols & (n_cols - 1) == 0
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    sort_rows[(n_rows,)](x, y, n_cols, BLOCK=BLOCK)
    return y
