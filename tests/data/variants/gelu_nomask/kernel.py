"""Bias + GELU over a flattened matrix, its mask removed: the author's rows are always a multiple of 128 long."""

import torch
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(y_ptr, x_ptr, b_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    b = tl.load(b_ptr + offs % n_cols)
    v = x + b
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(y_ptr + offs, 0.5 * v * (1.0 + t))


def run(x, bias):
    y = torch.empty_like(x)
    n = x.numel()
    assert n % 128 == 0, "no mask: the elements must be a multiple of the block"
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    bias_gelu_kernel[grid](y, x, bias, n, x.shape[-1], BLOCK_SIZE=128, num_warps=4, num_stages=1)
    return y
