"""A sum in two stages: each program of the first sums BLOCK_SIZE elements into a partial sum, then one program
counts the partials from the block it is given (`tl.cdiv(n, BLOCK)`) and sums them with one block of MAX_PARTS (at
most 64 partials of 1024: inputs of at most 65536 elements)."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(part_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def final_sum(part_ptr, out_ptr, n, BLOCK: tl.constexpr, MAX_PARTS: tl.constexpr):
    num_parts = tl.cdiv(n, BLOCK)
    offs = tl.arange(0, MAX_PARTS)
    p = tl.load(part_ptr + offs, mask=offs < num_parts, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0))


def run(x):
    n = x.numel()
    assert n <= 65536, "at most 64 partial sums of 1024 elements"
    BLOCK_SIZE = 1024
    parts = torch.empty(triton.cdiv(n, BLOCK_SIZE), device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    partial_sums[(triton.cdiv(n, BLOCK_SIZE),)](x, parts, n, BLOCK=BLOCK_SIZE)
    final_sum[(1,)](parts, out, n, BLOCK=BLOCK_SIZE, MAX_PARTS=64)
    return out
