"""A bf16 axpy with a leaky ReLU: a bf16 block times a Python float (x * 2.0, r * 0.5), which the GPU's builder makes
a bf16 constant and Triton's interpreter could not (newuser15: n83)."""

import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    r = x * 2.0 + y
    r = tl.where(r > 0, r, r * 0.5)
    tl.store(out_ptr + offs, r.to(tl.bfloat16), mask=m)


def run(x, y):
    n = x.numel()
    out = torch.empty_like(x)
    BLOCK = 128
    axpy_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, 2.0, BLOCK=BLOCK)
    return out
