"""Per-head RMS norm of queries (QK-norm): each token one program, its heads in one block of BLOCK_H rows masked
`h < H` (at most 16 heads), each head's dimension in one block of BLOCK_D columns masked `d < D` (at most 128)."""

import torch
import triton
import triton.language as tl


@triton.jit
def qk_norm_kernel(x_ptr, w_ptr, y_ptr, H, D, eps, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    h = tl.arange(0, BLOCK_H)[:, None]
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (h < H) & (d < D)
    x = tl.load(x_ptr + t * H * D + h * D + d, mask=mask, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / D + eps)
    w = tl.load(w_ptr + d, mask=d < D, other=0.0)
    tl.store(y_ptr + t * H * D + h * D + d, x * rstd[:, None] * w, mask=mask)


def run(x, w):
    T, H, D = x.shape
    assert H <= 16 and D <= 128
    y = torch.empty_like(x)
    qk_norm_kernel[(T,)](x, w, y, H, D, 1e-6, BLOCK_H=16, BLOCK_D=128)
    return y
