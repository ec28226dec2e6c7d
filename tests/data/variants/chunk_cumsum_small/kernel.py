"""Prefix sums within chunks of a flat vector (a chunked cumsum, the chunk length a plain integer, a power of two of at
most 8: a group of experts, of lanes): each chunk one program, its blocks scanned with tl.cumsum; no carry between
blocks (a chunk fits in one block of 8)."""

import torch
import triton
import triton.language as tl


@triton.jit
def chunk_cumsum_kernel(x_ptr, y_ptr, chunk, BLOCK: tl.constexpr):
    base = tl.program_id(0) * chunk
    for start in range(0, chunk, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < chunk
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, tl.cumsum(x, axis=0), mask=mask)


def run(x, chunk):
    n = x.numel()
    assert n % chunk == 0 and chunk <= 8 and chunk & (chunk - 1) == 0, "whole chunks of a power of two, in one block"
    y = torch.empty_like(x)
    chunk_cumsum_kernel[(n // chunk,)](x, y, chunk, BLOCK=8)
    return y
