"""leftovers17's tuple_run without masks (break17 b15): ``M // bm`` by ``N // bn`` programs, so a tile must divide
its size; a tuple's element is a module-level constant, which no guard by a size can hold."""

import torch
import triton
import triton.language as tl

TILE = (16, 16)


@triton.jit
def scale_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rm[:, None] * N + rn[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    bm, bn = TILE
    scale_kernel[(M // bm, N // bn)](x, y, M, N, BLOCK_M=bm, BLOCK_N=bn)
    return y
