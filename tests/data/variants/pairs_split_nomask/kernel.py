"""A vector of complex numbers stored as (re, im) pairs times i, in blocks of BLOCK elements (BLOCK // 2 pairs: a
reshape to (BLOCK // 2, 2), tl.split into re and im, tl.join(-im, re) back), a grid of n // BLOCK programs and no
masks: correct where BLOCK divides n (n a multiple of 64)."""

import torch
import triton
import triton.language as tl


@triton.jit
def times_i(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    re, im = tl.split(tl.reshape(tl.load(x_ptr + offs), (BLOCK // 2, 2)))
    tl.store(out_ptr + offs, tl.reshape(tl.join(-im, re), (BLOCK,)))


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    BLOCK = 64
    times_i[(n // BLOCK,)](x, out, BLOCK=BLOCK)
    return out
