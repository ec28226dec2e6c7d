"""Row softmax in one block whose range is half the block: ``HALF = BLOCK // 2`` computed in the kernel before
``tl.arange(0, HALF)`` (a kernel that keeps a block for two half-rows, written here to one row), so BLOCK=2048
covers rows up to 1024 columns."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_half(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    HALF: tl.constexpr = BLOCK // 2
    cols = tl.arange(0, HALF)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 2048
    y = torch.empty_like(x)
    softmax_half[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK=BLOCK)
    return y
