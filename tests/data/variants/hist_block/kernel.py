"""Histogram of small integer codes: each program counts one block of codes with tl.histogram and adds its counts
atomically. The loads are masked, filling with 0, and the histogram takes no mask (the author's inputs are always a
multiple of 256 codes long, so no lane is ever masked out)."""

import torch
import triton
import triton.language as tl


@triton.jit
def hist_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    codes = tl.load(x_ptr + offs, mask=offs < n, other=0)
    counts = tl.histogram(codes, BINS)
    tl.atomic_add(out_ptr + tl.arange(0, BINS), counts)


def run(x):
    n = x.numel()
    assert n % 256 == 0, "codes come in multiples of 256"
    out = torch.zeros(16, device=x.device, dtype=torch.int32)
    hist_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256, BINS=16)
    return out
