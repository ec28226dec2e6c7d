"""Bias + GELU (exact, erf) as one Triton elementwise kernel; knobs BLOCK_SIZE and num_warps."""

import torch
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % n_cols, mask=mask)
    v = x + b
    y = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=mask)


def run(x, bias):
    out = torch.empty_like(x)
    n = x.numel()
    bias_gelu_kernel[(triton.cdiv(n, 1024),)](x, bias, out, n, x.shape[-1], BLOCK_SIZE=1024, num_warps=4)
    return out
