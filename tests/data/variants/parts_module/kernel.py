"""Row sums in two stages: each program of the first sums BLOCK_SIZE columns of a row into a partial sum, then one
program a row sums that row's partials with one block of MAX_PARTS (at most 16 partials of 1024: rows of at most 16384
columns)."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums(x_ptr, part_ptr, n_cols, num_parts, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(part_ptr + row * num_parts + pid, tl.sum(x, axis=0))


@triton.jit
def final_sums(part_ptr, out_ptr, num_parts, MAX_PARTS: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, MAX_PARTS)
    p = tl.load(part_ptr + row * num_parts + offs, mask=offs < num_parts, other=0.0)
    tl.store(out_ptr + row, tl.sum(p, axis=0))


def run(x):
    rows, n_cols = x.shape
    assert n_cols <= 16384, "at most 16 partial sums of 1024 columns"
    BLOCK_SIZE = 1024
    num_parts = triton.cdiv(n_cols, BLOCK_SIZE)
    parts = torch.empty(rows, num_parts, device=x.device, dtype=torch.float32)
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    partial_sums[(rows, num_parts)](x, parts, n_cols, num_parts, BLOCK=BLOCK_SIZE)
    final_sums[(rows,)](parts, out, num_parts, MAX_PARTS=16)
    return out
