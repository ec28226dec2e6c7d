"""A vector scaled by two in blocks of BLOCK, the block a 64th of the vector's power of two (at least 256), at least
8 programs (a launch that wants every SM busy asserts it on the host): the computed block always leaves 32 programs
or more above 16384 elements, and runs every size of more than 1792; a fixed block asks more of the size."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = max(256, triton.next_power_of_2(n) // 64)
    assert triton.cdiv(n, BLOCK) >= 8, "at least 8 programs"
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
