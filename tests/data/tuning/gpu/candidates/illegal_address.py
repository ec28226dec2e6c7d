"""Adversarial (GPU): stores far outside its output, an illegal memory access that poisons the CUDA context."""

import torch
import triton
import triton.language as tl


@triton.jit
def wild_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs + (1 << 40), tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x, bias):
    out = torch.empty_like(x)
    wild_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
