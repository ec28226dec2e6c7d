"""A sum in two stages: each program of the first sums UNROLL blocks of BLOCK elements (tl.static_range) into a
partial sum, then one program sums the partials with one block of MAX_PARTS (at most 64 partials of 4 x 256)."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums(x_ptr, part_ptr, n, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for u in tl.static_range(UNROLL):
        offs = (pid * UNROLL + u) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def final_sum(part_ptr, out_ptr, num_parts, MAX_PARTS: tl.constexpr):
    offs = tl.arange(0, MAX_PARTS)
    p = tl.load(part_ptr + offs, mask=offs < num_parts, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0))


def run(x):
    n = x.numel()
    assert n <= 65536, "at most 64 partial sums of 1024 elements"
    BLOCK = 256
    UNROLL = 4
    num_parts = triton.cdiv(n, BLOCK * UNROLL)
    parts = torch.empty(num_parts, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    partial_sums[(num_parts,)](x, parts, n, BLOCK=BLOCK, UNROLL=UNROLL)
    final_sum[(1,)](parts, out, num_parts, MAX_PARTS=64)
    return out
