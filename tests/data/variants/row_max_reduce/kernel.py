"""Row max over a loop of blocks through tl.reduce and a combine function of its own; the loads are masked but fill
with 0.0 (the author's rows are always a multiple of 128 long, so no lane is ever masked out)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _larger(a, b):
    return tl.maximum(a, b)


@triton.jit
def row_max(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = float("-inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        best = tl.maximum(best, tl.reduce(x, 0, _larger))
    tl.store(y_ptr + row, best)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols % 128 == 0, "rows are a multiple of 128 long"
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_max[(n_rows,)](x, y, n_cols, BLOCK=128)
    return y
