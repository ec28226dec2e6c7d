"""Square in whole blocks, the block set by @triton.heuristics; no mask (the length a multiple of BLOCK)."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: 64})
@triton.jit
def _sq(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, v * v)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    _sq[lambda meta: (n // meta["BLOCK"],)](x, y, n)
    return y
