"""Strided gather in Triton: thread i reads x[i * 16], so every 32-byte sector serves 4 useful bytes."""

import torch
import triton
import triton.language as tl


@triton.jit
def strided_copy_kernel(x_ptr, y_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs * STRIDE, mask=mask)
    tl.store(y_ptr + offs, v * 2.0, mask=mask)


def run(x):
    n = x.numel() // 16
    y = torch.empty(n, device=x.device, dtype=x.dtype)
    strided_copy_kernel[(triton.cdiv(n, 1024),)](x, y, n, STRIDE=16, BLOCK=1024, num_warps=4)
    return y
