"""Rotate pairs (x1, x2) of each row by angle tables; the tables repeat their first half, so only it is read."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rope(x_ptr, cos_ptr, sin_ptr, y_ptr, D, HALF: tl.constexpr):
    r = tl.program_id(0)
    k = tl.arange(0, HALF)
    x1 = tl.load(x_ptr + r * D + k)
    x2 = tl.load(x_ptr + r * D + HALF + k)
    c = tl.load(cos_ptr + r * D + k)
    s = tl.load(sin_ptr + r * D + k)
    tl.store(y_ptr + r * D + k, x1 * c - x2 * s)
    tl.store(y_ptr + r * D + HALF + k, x2 * c + x1 * s)


def run(x, cos, sin):
    rows, D = x.shape
    y = torch.empty_like(x)
    _rope[(rows,)](x, cos, sin, y, D, HALF=D // 2, num_warps=2)
    return y
