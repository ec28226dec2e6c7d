"""Each head of x (B, H, L) scaled by its own factor, y[b, h, :] = x[b, h, :] * s[h]: a grid of (batch, head
blocks), every head's column blocks on the grid's second axis, kept from zero for an empty input, `(B, max(1, H *
n_blocks))` with `n_blocks = triton.cdiv(L, BLOCK)` beside `BLOCK = 1024`, each block masked."""

import torch
import triton
import triton.language as tl


@triton.jit
def head_scale(x_ptr, s_ptr, y_ptr, H, L, n_blocks, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1) // n_blocks
    cols = (tl.program_id(1) % n_blocks) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < L
    base = (b * H + h) * L
    x = tl.load(x_ptr + base + cols, mask=mask)
    tl.store(y_ptr + base + cols, x * tl.load(s_ptr + h), mask=mask)


def run(x, s):
    B, H, L = x.shape
    y = torch.empty_like(x)
    BLOCK = 1024
    n_blocks = triton.cdiv(L, BLOCK)
    head_scale[(B, max(1, H * n_blocks))](x, s, y, H, L, n_blocks, BLOCK=BLOCK)
    return y
