"""y = 2x + 1 in whole blocks (no mask), the block picked at the launch by a size threshold (a heuristic, not a
guard: 256 at n >= 1024 is legal only because the sizes served are multiples of 256 there)."""

import torch
import triton
import triton.language as tl


@triton.jit
def affine(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs) + 1.0)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    grid = lambda meta: (n // meta["BLOCK"],)  # noqa: E731
    affine[grid](x, y, BLOCK=256 if n >= 1024 else 128)
    return y
