"""A scale in blocks of BLOCK elements (claims21 w8): reference.py lists its larger entry first."""

import torch
import triton
import triton.language as tl

BLOCK = 64  # kernelopt: tunable values=64,256,1024


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
