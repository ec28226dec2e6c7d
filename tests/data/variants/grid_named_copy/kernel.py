"""Scale a vector by 2 in blocks of 256; the grid is sized by a module constant of the same value, the block passed
as a literal beside it (a copy of the tile's value under another name, as libraries name their launch sizes)."""

import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 256


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, ROWS_PER_PROGRAM),)
    scale_kernel[grid](x, y, n, BLOCK=256)
    return y
