"""Sum of squares in two launches sharing one block: partial sums of whole blocks (no mask), then their sum."""

import torch
import triton
import triton.language as tl


@triton.jit
def _partial(x_ptr, part_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    tl.store(part_ptr + pid, tl.sum(v * v, axis=0))


@triton.jit
def _finish(part_ptr, out_ptr, n_parts, P: tl.constexpr):
    offs = tl.arange(0, P)
    v = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(v, axis=0))


def run(x):
    n = x.numel()
    BLOCK = 32
    n_parts = n // BLOCK
    part = torch.empty(n_parts, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    _partial[(n_parts,)](x, part, BLOCK=BLOCK, num_warps=4)
    _finish[(1,)](part, out, n_parts, P=triton.next_power_of_2(n_parts), num_warps=4)
    return out
