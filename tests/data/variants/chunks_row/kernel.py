"""Row sums, each row (at most 1024 columns) one program summing CHUNKS=4 blocks of BLOCK=256 unrolled by
`tl.static_range`, masked on the columns: one program covers CHUNKS * BLOCK columns and no more."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(CHUNKS):
        cols = i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 1024, "rows of at most 1024 columns"
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_sum[(n_rows,)](x, y, n_cols, BLOCK=256, CHUNKS=4)
    return y
