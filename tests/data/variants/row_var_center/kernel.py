"""Row variance in two passes over a loop of blocks: the mean, then the sum of squared deviations. The loads are
masked but fill with 0.0 and the deviation ``x - mean`` is not masked again (the author's rows are always a
multiple of 128 long, so no lane is ever masked out)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_var(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    sq = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        d = x - mean
        sq += d * d
    tl.store(y_ptr + row, tl.sum(sq, axis=0) / n_cols)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols % 128 == 0, "rows are a multiple of 128 long"
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_var[(n_rows,)](x, y, n_cols, BLOCK=128)
    return y
