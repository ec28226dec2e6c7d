"""Rows of at most 128 columns scaled into a buffer whose rows are padded to the block (`torch.empty(M, 128)`, the
store strided `row * BLOCK_N`), then sliced back to N. The SHAPES are one row each (batch-1 decoding)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + row * BLOCK_N + cols, x * 2.0, mask=cols < N)


def run(x):
    M, N = x.shape
    assert N <= 128
    y = torch.empty(M, 128, device=x.device, dtype=x.dtype)
    scale_rows[(M,)](x, y, N, BLOCK_N=128)
    return y[:, :N]
