"""Sums of the chunks of a flat vector (the chunk length a plain integer): each chunk split over programs of BLOCK
elements on the grid's second axis, their partials added atomically; at least 4 programs a chunk."""

import torch
import triton
import triton.language as tl


@triton.jit
def chunk_sum_kernel(x_ptr, y_ptr, chunk, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + c * chunk + offs, mask=offs < chunk, other=0.0)
    tl.atomic_add(y_ptr + c, tl.sum(x, axis=0))


def run(x, chunk):
    BLOCK = 128
    parts = triton.cdiv(chunk, BLOCK)
    assert parts >= 4, "at least 4 programs a chunk"
    y = torch.zeros(x.numel() // chunk, device=x.device, dtype=torch.float32)
    chunk_sum_kernel[(x.numel() // chunk, parts)](x, y, chunk, BLOCK=BLOCK)
    return y
