"""A scale whose BLOCK is a literal bound once in the launching function, beside triton.cdiv(n, BLOCK): a per-size
table may hold it (leftovers21 l9; seen21 u28)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    scale_kernel[grid](x, out, n, BLOCK=BLOCK)
    return out
