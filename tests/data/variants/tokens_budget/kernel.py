"""Per-token scale of x (T, D): each program `BLOCK_T = 32` tokens of the whole head dimension `D` (a tl.constexpr,
a power of two of at most 1024), the tile held by `tl.static_assert(BLOCK_T * D <= 32768)`."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, s_ptr, y_ptr, T, BLOCK_T: tl.constexpr, D: tl.constexpr):
    tl.static_assert(BLOCK_T * D <= 32768, "a tile of at most 32768 values")
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.arange(0, D)
    mask = rows[:, None] < T
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
    s = tl.load(s_ptr + rows, mask=rows < T, other=0.0)
    tl.store(y_ptr + rows[:, None] * D + cols[None, :], x * s[:, None], mask=mask)


def run(x, s):
    T, D = x.shape
    assert D <= 1024 and D & (D - 1) == 0, "a head dimension of a power of two, at most 1024"
    y = torch.empty_like(x)
    BLOCK_T = 32
    scale_kernel[(triton.cdiv(T, BLOCK_T),)](x, s, y, T, BLOCK_T=BLOCK_T, D=D)
    return y
