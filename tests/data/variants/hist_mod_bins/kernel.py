"""Histogram of integer codes below n_bins (at most 256): each program counts one block of codes with
tl.histogram(codes, BINS), its bins the block BINS = 256 (a block of bins, not of codes: every code must fall below
it), masked loads, the counts added atomically under a mask on the bins."""

import torch
import triton
import triton.language as tl


@triton.jit
def hist_kernel(x_ptr, out_ptr, n, n_bins, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    codes = tl.load(x_ptr + offs, mask=mask, other=0)
    counts = tl.histogram(codes, BINS, mask=mask)
    bins = tl.arange(0, BINS)
    tl.atomic_add(out_ptr + bins, counts, mask=bins < n_bins)


def run(x, n_bins):
    assert n_bins <= 256
    n = x.numel()
    out = torch.zeros(n_bins, device=x.device, dtype=torch.int32)
    hist_kernel[(triton.cdiv(n, 1024),)](x, out, n, n_bins, BLOCK=1024, BINS=256)
    return out
