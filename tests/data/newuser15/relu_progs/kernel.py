"""A masked ReLU whose host refuses more than 64 programs (raise ValueError): a block below 128 fails the
entries, a larger one covers every size the original runs (newuser15: n82)."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=m)


def run(x):
    n = x.numel()
    BLOCK = 256
    grid = triton.cdiv(n, BLOCK)
    if grid > 64:
        raise ValueError(f"too many programs: {grid}")
    out = torch.empty_like(x)
    relu_kernel[(grid,)](x, out, n, BLOCK=BLOCK)
    return out
