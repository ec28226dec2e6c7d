"""v149: a sum of squares in whole tiles without masks (the statistics pass of an RMS norm over a flat buffer whose
length its caller keeps a multiple of 256), its grid counted by ``cdiv`` imported under another name, ``from triton
import cdiv as ceil_tiles``: a grid kernelopt read as no count of tiles, so ``BLOCK = 512`` was written plainly, and
at n = 768 its two programs read 256 values past the end where the original's three of 256 read none."""

import torch
import triton
import triton.language as tl
from triton import cdiv as ceil_tiles


@triton.jit
def sumsq_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))


def run(x):
    n = x.numel()
    out = torch.zeros(1, device=x.device, dtype=torch.float32)
    BLOCK = 256
    grid = (ceil_tiles(n, BLOCK),)
    sumsq_kernel[grid](x, out, BLOCK=BLOCK)
    return out
