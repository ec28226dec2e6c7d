"""Scaled ReLU over a flat tensor; VEC is a leftover hint the body no longer reads."""

import torch
import triton
import triton.language as tl


@triton.jit
def scaled_relu_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, VEC: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    scaled_relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, 2.0, BLOCK=BLOCK, VEC=4, num_warps=4)
    return out
