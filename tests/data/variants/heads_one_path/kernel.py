"""Each head's sum of squares of a (tokens, heads, head_dim) tensor: many heads one program a (token, head) over
masked blocks of BLOCK; one head (a multi-query key) by a second kernel, tiles of BLOCK_T tokens walking the head's
dimension in whole blocks of BLOCK_D without a mask, then the rest in one masked block of TAIL, a setting of its
own. Right at every size while TAIL covers what BLOCK_D leaves (TAIL >= BLOCK_D - 1)."""

import torch
import triton
import triton.language as tl


@triton.jit
def sumsq_heads_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, D, BLOCK):
        d = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * D + d, mask=d < D, other=0.0)
        acc += x * x
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def sumsq_one_head_kernel(x_ptr, y_ptr, T, D, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr, TAIL: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    live = t < T
    acc = tl.zeros((BLOCK_T,), dtype=tl.float32)
    d_full = (D // BLOCK_D) * BLOCK_D
    for start in range(0, d_full, BLOCK_D):
        d = start + tl.arange(0, BLOCK_D)
        x = tl.load(x_ptr + t[:, None] * D + d[None, :], mask=live[:, None], other=0.0)
        acc += tl.sum(x * x, axis=1)
    d = d_full + tl.arange(0, TAIL)
    x = tl.load(x_ptr + t[:, None] * D + d[None, :], mask=live[:, None] & (d[None, :] < D), other=0.0)
    tl.store(y_ptr + t, acc + tl.sum(x * x, axis=1), mask=live)


def run(x):
    T, H, D = x.shape
    y = torch.empty(T, H, device=x.device, dtype=torch.float32)
    if H == 1:
        sumsq_one_head_kernel[(triton.cdiv(T, 16),)](x, y, T, D, BLOCK_T=16, BLOCK_D=16, TAIL=16)
    else:
        sumsq_heads_kernel[(T * H,)](x, y, D, BLOCK=128)
    return y
