"""Bias + GELU (tanh approximation) over a 16384 x 16384 fp32 matrix, written as a first attempt.

One program per 128 elements of the flattened matrix, 4 warps: correct, but each thread holds one element
and the grid has two million programs. The knobs are the launch keywords (BLOCK_SIZE, num_warps,
num_stages).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(y_ptr, x_ptr, b_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    v = x + b
    # tanh(u) = 1 - 2 / (exp(2u) + 1), written with exp so that the interpreter runs it too
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(y_ptr + offs, 0.5 * v * (1.0 + t), mask=mask)


def run(x, bias):
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    bias_gelu_kernel[grid](y, x, bias, n, x.shape[-1], BLOCK_SIZE=128, num_warps=4, num_stages=1)
    return y
