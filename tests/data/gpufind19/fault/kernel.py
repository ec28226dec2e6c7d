"""A scale whose run faults at an odd length after its launch, as bnb_int8_mm's hinted row did at M=37 on the H100
(2026-12-06): "CUDA error: misaligned address", an error that leaves a CUDA process unusable, so the bench worker that
saw it must start again. Every candidate raises there as the kernel as written does (BLOCK changes nothing of it)."""

import torch
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    if n % 2:
        raise RuntimeError("CUDA error: misaligned address")
    return y
