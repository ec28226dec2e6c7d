"""Row sums: a row of more than 64 columns one program over a loop of masked blocks of BLOCK_SIZE; rows of at most
64 packed, BLOCK_SIZE // 64 rows a program in a 2-D block of 64 columns (the lanes of one block of the loop over
both kernels, one module-level block)."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def rowsum_looped(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def rowsum_packed(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    if n_cols > 64:
        rowsum_looped[(n_rows,)](x, y, n_cols, BLOCK=BLOCK_SIZE)
    else:
        rows = BLOCK_SIZE // 64
        rowsum_packed[(triton.cdiv(n_rows, rows),)](x, y, n_rows, n_cols, ROWS=rows, COLS=64)
    return y
