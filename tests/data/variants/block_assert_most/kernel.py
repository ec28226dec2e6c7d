"""v158: a vector scaled by two in masked blocks of ``BLOCK``, the launcher checking the block against the most its
kernel was written for, ``assert BLOCK <= 1024`` (a tile a user's port keeps to one warp group's lanes): read by no
rule, so ``BLOCK = 2048`` was written (guarded by nothing a size says), failing the assert at every size where the
original's 256 runs."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = 256
    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
