"""Row scaling by the row's maximum with one block per row: the block must cover the row, and the launch says so
with an assert (a block lowered below a SHAPES entry's row length trips it at that entry only)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _row_max_scale(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    peak = tl.max(tl.abs(x), axis=0)
    tl.store(y_ptr + row * stride + cols, x / (peak + 1e-6), mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 512, "one block covers the row"
    y = torch.empty_like(x)
    BLOCK = 512
    assert n_cols <= BLOCK
    _row_max_scale[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK=BLOCK, num_warps=4)
    return y
