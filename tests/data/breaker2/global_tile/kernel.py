"""Add one to a vector in whole tiles of a module-level constexpr; no mask (length a multiple of TILE)."""

import torch
import triton
import triton.language as tl

TILE = tl.constexpr(32)


@triton.jit
def _add_one(x_ptr, y_ptr):
    offs = tl.program_id(0) * TILE + tl.arange(0, TILE)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def run(x):
    y = torch.empty_like(x)
    _add_one[(x.numel() // TILE,)](x, y)
    return y
