"""Prefix sums within chunks of a flat vector (a chunked cumsum, the chunk length a plain integer): each chunk one
program, its blocks scanned with tl.cumsum; no carry between blocks (a chunk fits in one block of 256)."""

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
    assert n % chunk == 0 and chunk <= 256, "whole chunks, each in one block: the scan carries nothing between blocks"
    y = torch.empty_like(x)
    chunk_cumsum_kernel[(n // chunk,)](x, y, chunk, BLOCK=256)
    return y
