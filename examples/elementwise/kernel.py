"""Fused SiLU + residual add, out = x * sigmoid(x) + y, as a first Triton kernel (fp16).

Correct but slow on purpose: each program handles only 128 elements with 4 warps, so every thread
loads one 16-bit value per input and the GPU spends its time on tiny memory transactions and
launching two million programs. kernelopt tunes the launch keywords (BLOCK_SIZE, num_warps).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def silu_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask).to(tl.float32)
    out = x * tl.sigmoid(x) + y
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


def run(x, y):
    out = torch.empty_like(x)
    n_elements = x.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    silu_add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=128, num_warps=4)
    return out
