"""Triton row sum: one program per row, the whole row loaded at once (dim up to 8192), summed in float32."""

import torch
import triton
import triton.language as tl
from torch import nn


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x.to(tl.float32), axis=0))


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty((rows, 1), device=x.device, dtype=x.dtype)
        row_sum_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols), num_warps=8)
        return out
