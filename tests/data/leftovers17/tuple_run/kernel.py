"""A row-major scale tiled in two dimensions, its tiles a module-level tuple unpacked in ``run`` (leftovers17 l2):
each element of ``TILE`` is a knob, written back in the tuple."""

import torch
import triton
import triton.language as tl

TILE = (16, 16)


@triton.jit
def scale_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    bm, bn = TILE
    scale_kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](x, y, M, N, BLOCK_M=bm, BLOCK_N=bn)
    return y
