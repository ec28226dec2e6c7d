"""A two-stage sum: each program sums one block into a partials buffer sized for at most 64 programs; the grid
is the number of blocks, so a block small enough to need more than 64 programs runs past the buffer."""

import torch
import triton
import triton.language as tl

MAX_PARTIALS = 64


@triton.jit
def _block_sums(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


def run(x):
    n = x.numel()
    partials = torch.zeros(MAX_PARTIALS, dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(n, 256),)
    _block_sums[grid](x, partials, n, BLOCK=256)
    return partials.sum().reshape(1)
