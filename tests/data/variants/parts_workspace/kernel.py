"""Row sums in two stages: partial sums of `BLOCK = 1024` columns, `n_parts = triton.cdiv(n_cols, BLOCK)` a row on
the grid's second axis, into a workspace of at most `WORKSPACE = 2**20` partials (`assert n_rows * n_parts <=
WORKSPACE`), then one program a row sums its partials in blocks of 64."""

import torch
import triton
import triton.language as tl

WORKSPACE = 2**20


@triton.jit
def partial_sums(x_ptr, p_ptr, n_cols, n_parts, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    cols = part * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(p_ptr + row * n_parts + part, tl.sum(x, axis=0))


@triton.jit
def finish(p_ptr, y_ptr, n_parts, PARTS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([PARTS], dtype=tl.float32)
    for start in range(0, n_parts, PARTS):
        offs = start + tl.arange(0, PARTS)
        acc += tl.load(p_ptr + row * n_parts + offs, mask=offs < n_parts, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_parts = triton.cdiv(n_cols, BLOCK)
    assert n_rows * n_parts <= WORKSPACE, "the partials fit the workspace"
    p = torch.empty(n_rows * n_parts, device=x.device, dtype=torch.float32)
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    partial_sums[(n_rows, n_parts)](x, p, n_cols, n_parts, BLOCK=BLOCK)
    finish[(n_rows,)](p, y, n_parts, PARTS=64)
    return y
