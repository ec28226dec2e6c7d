"""A Triton elementwise add started at a poor BLOCK (``kernelopt tune`` tests; TRITON_INTERPRET=1 on the CPU):
at BLOCK=32 the interpreter runs 32 programs for 1024 elements, so every larger block is much faster."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def run(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32)
    return out
