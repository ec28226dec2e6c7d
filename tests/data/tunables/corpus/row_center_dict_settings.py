"""Row centering (each row minus its mean) whose launch settings come from a helper that hands them back in a
dict; the launch splats the dict. One program covers a whole row, so the block must reach the row's length."""

import torch
import triton
import triton.language as tl


def row_launch_settings(n_cols):
    block = triton.next_power_of_2(n_cols)
    warps = 8 if block >= 2048 else 4
    return {"BLOCK_SIZE": block, "num_warps": warps}


@triton.jit
def row_center_kernel(out_ptr, x_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    tl.store(out_ptr + row * stride + cols, x - mean, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    settings = row_launch_settings(n_cols)
    row_center_kernel[(n_rows,)](out, x, x.stride(0), n_cols, **settings)
    return out
