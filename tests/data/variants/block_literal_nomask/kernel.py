"""ReLU over a flat vector in blocks of BLOCK, a grid of n // BLOCK programs and no masks: correct where BLOCK divides
n (newuser11's n61 with the block a literal, not computed from num_warps)."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0))


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    BLOCK = 64
    relu_kernel[(n // BLOCK,)](x, out, BLOCK=BLOCK)
    return out
