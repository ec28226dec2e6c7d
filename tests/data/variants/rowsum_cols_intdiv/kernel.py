"""v153: row sums in tiles of ``BLOCK_M`` rows by ``BLOCK_N`` columns, the rows masked and the columns not (the
caller keeps its rows a multiple of 64 wide), each tile's partial sums added atomically, the columns' tiles counted
in float and truncated, ``int((n_cols + BLOCK_N - 1) / BLOCK_N)``: read as no count, so ``BLOCK_N = 128`` was
written plainly, and at 192 columns each row's second tile reads the next row's first 64 values into its sum, where
the original's three tiles of 64 read none."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    in_rows = rows < n_rows
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=in_rows[:, None], other=0.0)
    tl.atomic_add(out_ptr + rows, tl.sum(x.to(tl.float32), axis=1), mask=in_rows)


def run(x):
    n_rows, n_cols = x.shape
    out = torch.zeros(n_rows, device=x.device, dtype=torch.float32)
    BLOCK_M = 16
    BLOCK_N = 64
    grid = (triton.cdiv(n_rows, BLOCK_M), int((n_cols + BLOCK_N - 1) / BLOCK_N))
    rowsum_kernel[grid](x, out, n_rows, n_cols, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
