"""ReLU over a flat vector in tiles of TILE = BLOCK * UNROLL elements (the tile computed from two settings), a grid
of n // TILE programs and no masks: correct where TILE divides n."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * TILE + tl.arange(0, TILE)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0))


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    BLOCK = 64
    UNROLL = 2
    TILE = BLOCK * UNROLL
    relu_kernel[(n // TILE,)](x, out, TILE=TILE)
    return out
