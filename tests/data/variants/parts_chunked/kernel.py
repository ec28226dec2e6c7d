"""A sum in two stages: each program of the first sums BLOCK_SIZE elements into a partial sum, then one program
sums the partials in CHUNKS=4 blocks of PART=16 (`for i in tl.static_range(CHUNKS)`; at most 64 partials of 1024:
inputs of at most 65536 elements)."""

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
def final_sum(part_ptr, out_ptr, num_parts, PART: tl.constexpr, CHUNKS: tl.constexpr):
    total = tl.zeros((PART,), dtype=tl.float32)
    for i in tl.static_range(CHUNKS):
        offs = i * PART + tl.arange(0, PART)
        total += tl.load(part_ptr + offs, mask=offs < num_parts, other=0.0)
    tl.store(out_ptr, tl.sum(total, axis=0))


def run(x):
    n = x.numel()
    assert n <= 65536, "at most 64 partial sums of 1024 elements"
    BLOCK_SIZE = 1024
    num_parts = triton.cdiv(n, BLOCK_SIZE)
    parts = torch.empty(num_parts, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    partial_sums[(num_parts,)](x, parts, n, BLOCK=BLOCK_SIZE)
    final_sum[(1,)](parts, out, num_parts, PART=16, CHUNKS=4)
    return out
