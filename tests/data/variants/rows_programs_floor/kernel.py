"""Row scaling over tiles of BLOCK_M rows and every column (rows of a multiple of 64 columns, at most 256), at least 4
programs (a launch that keeps the SMs busy asserts it)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    s = tl.load(s_ptr + rows, mask=rows < n_rows, other=0.0)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0) * s[:, None], mask=mask)


def run(x, s):
    n_rows, n_cols = x.shape
    assert n_cols % 64 == 0 and n_cols <= 256, "rows of 64, 128, 192 or 256 columns"
    BLOCK_M = 32
    programs = triton.cdiv(n_rows, BLOCK_M)
    assert programs >= 4, "at least 4 programs"
    y = torch.empty_like(x)
    row_scale_kernel[(programs,)](x, s, y, n_rows, n_cols, BLOCK_M=BLOCK_M, BLOCK_N=256)
    return y
