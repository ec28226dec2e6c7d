"""Rows of ``x`` scaled by 2, ``BLOCK_N`` rows a program: the row block set by a ``triton.heuristics`` lambda, the
head ``D`` a ``tl.constexpr`` the launch passes."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK_N": lambda args: 16})
@triton.jit
def _rows(x_ptr, out_ptr, n_rows, D: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = tl.arange(0, D)
    mask = rows[:, None] < n_rows
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], x * 2, mask=mask)


def run(x):
    n_rows, d = x.shape
    assert d <= 128
    out = torch.empty_like(x)
    _rows[lambda meta: (triton.cdiv(n_rows, meta["BLOCK_N"]),)](x, out, n_rows, D=d)
    return out
