"""ReLU over a matrix's M * N elements read flat, in blocks of BLOCK, a grid of M * N // BLOCK programs and no masks:
correct where BLOCK divides M * N, so a block the rows alone or the columns alone divide is not needed (a larger one
is wrong only where both M and N are off their multiples)."""

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
    BLOCK = 16
    relu_kernel[(n // BLOCK,)](x, out, BLOCK=BLOCK)
    return out
