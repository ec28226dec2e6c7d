"""Row maxima, each row one block of ``next_power_of_2(n_cols)`` lanes, the row loaded by a ``@triton.jit`` helper
whose masked-out lanes are 0.0 (libraries keep their loads in helpers): right wherever the block fills the row (a
power of two), and at random rows of 200 columns (their maximum is above 0); a block wider than a few columns of
negative values returns 0 (leftovers13: the fill rule did not follow the helper's return, so the block read as
checked and any block was written)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _load_row(row_ptr, cols, n_cols):
    return tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0)


@triton.jit
def rowmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = _load_row(x_ptr + row * n_cols, cols, n_cols)
    tl.store(y_ptr + row, tl.max(x, axis=0))


def run(x):
    m, n_cols = x.shape
    y = torch.empty(m, device=x.device, dtype=x.dtype)
    BLOCK = triton.next_power_of_2(n_cols)
    rowmax_kernel[(m,)](x, y, n_cols, BLOCK=BLOCK)
    return y
