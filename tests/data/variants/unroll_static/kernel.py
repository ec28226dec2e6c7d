"""A vector scaled without masks, each program UNROLL blocks of BLOCK unrolled by `tl.static_range` (hidden sizes of
768, 1536, 3072: always a multiple of 384 = 128 * 3), its grid counting programs of `BLOCK * UNROLL` elements."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    base = tl.program_id(0) * BLOCK * UNROLL
    for i in tl.static_range(UNROLL):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, x * 2.0)


def run(x):
    n = x.numel()
    assert n % 384 == 0, "n must be a multiple of 384"
    y = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"] * meta["UNROLL"]),)  # noqa: E731
    scale_kernel[grid](x, y, n, BLOCK=128, UNROLL=3)
    return y
