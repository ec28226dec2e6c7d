"""Two-stage sum: each program sums one block into a buffer of partial sums, and one program sums those. The
buffer (``num = triton.cdiv(n, 256)``) and the grid (``(triton.cdiv(n, 256),)``) are sized with the block's value
written again, as ``BLOCK=256`` at the launch."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def final_sum(p_ptr, out_ptr, m, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(p_ptr + offs, mask=offs < m, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0))


def run(x):
    n = x.numel()
    num = triton.cdiv(n, 256)
    partials = torch.empty(num, device=x.device, dtype=torch.float32)
    partial_sum[(triton.cdiv(n, 256),)](x, partials, n, BLOCK=256)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    final_sum[(1,)](partials, out, num, BLOCK=triton.next_power_of_2(num))
    return out
