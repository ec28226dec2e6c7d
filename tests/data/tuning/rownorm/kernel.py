"""A row normalization whose block is computed from the row length by a settings helper, launched inside an
autograd.Function through an alias (issue 32: `tune` once wrote the literal BLOCK=128 here, which handles
half of each 256-column row). The block must cover the row: the kernel has no loop over columns."""

import torch
import triton
import triton.language as tl


def launch_settings(n_cols):
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block < 2048 else 8
    return block, warps


@triton.jit
def rownorm_kernel(y_ptr, x_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    total = tl.sum(tl.abs(x), axis=0)
    tl.store(y_ptr + row * n_cols + cols, x / (total + 1e-6), mask=mask)


class RowNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        block, warps = launch_settings(n_cols)
        rownorm_kernel[(n_rows,)](y, x, n_cols, BLOCK=block, num_warps=warps)
        return y


row_norm = RowNorm.apply


def run(x):
    return row_norm(x)
