"""Rows scaled to unit sum, launched from an ``autograd.Function`` through an alias. The block must
cover the whole row (the kernel reads the row once), so it is computed from the row length, and the
warp count is computed from the block by a second helper: the block is read in two places."""

import torch
import triton
import triton.language as tl


def launch_block(n_cols):
    return triton.next_power_of_2(n_cols)


def warps_for(block):
    return 1 if block <= 128 else (4 if block <= 4096 else 8)


@triton.jit
def row_normalize_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    y = x / tl.sum(x, axis=0)
    tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


class RowNormalize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        block = launch_block(n_cols)
        warps = warps_for(block)
        launch = row_normalize_kernel
        launch[(n_rows,)](x, out, x.stride(0), n_cols, BLOCK=block, num_warps=warps)
        return out


def run(x):
    return RowNormalize.apply(x)
