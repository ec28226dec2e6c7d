"""A scale of a vector by a keyed autotune list of nine configurations, one per block size from 16 to 4096: its
autotuner picks one per ``n`` at run time."""

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 2**i}) for i in range(4, 13)], key=["n"])
@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    _scale[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y
