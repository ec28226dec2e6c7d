"""v156: two passes over one vector in tiles of ``BLOCK``: a masked scale on ``n_tiles = triton.cdiv(n, BLOCK)``
programs, then an unmasked finishing add (the caller keeps n a multiple of 256) whose programs are counted up from
zero, ``programs = 0`` then ``programs += n_tiles`` (one count per pass it finishes): the count was read as the masked
kernel's alone (an augmented assignment was not followed into the second grid), so ``BLOCK = 512`` was written
plainly, and at n = 768 its two finishing programs read and write 256 values past the end, where the original's three
of 256 are right."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_masked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@triton.jit
def finish_nomask(y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.load(y_ptr + offs) + 1.0)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    BLOCK = 256
    n_tiles = triton.cdiv(n, BLOCK)
    scale_masked[(n_tiles,)](x, y, n, BLOCK=BLOCK)
    programs = 0
    programs += n_tiles
    finish_nomask[(programs,)](y, z, BLOCK=BLOCK)
    return z
