"""Squared distances between n points, one BLOCK x BLOCK tile of the n x n output a program, summed over the
dimensions one at a time."""

import torch
import triton
import triton.language as tl


@triton.jit
def _pair_sq(x_ptr, out_ptr, n, dim, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for d in range(dim):
        a = tl.load(x_ptr + rows * dim + d, mask=rows < n, other=0.0)
        b = tl.load(x_ptr + cols * dim + d, mask=cols < n, other=0.0)
        diff = a[:, None] - b[None, :]
        acc += diff * diff
    tl.store(out_ptr + rows[:, None] * n + cols[None, :], acc, mask=(rows[:, None] < n) & (cols[None, :] < n))


def run(x):
    n, dim = x.shape
    out = torch.empty(n, n, device=x.device, dtype=torch.float32)
    BLOCK = 32
    _pair_sq[(triton.cdiv(n, BLOCK), triton.cdiv(n, BLOCK))](x, out, n, dim, BLOCK=BLOCK)
    return out
