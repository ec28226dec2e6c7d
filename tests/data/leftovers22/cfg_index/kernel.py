"""Each value doubled, y = 2 x: a launch whose settings come from a list local to the launching function
(``cfg = [1024, 4]``), its grid counting tiles of ``cfg[0]`` as its ``BLOCK=cfg[0]`` does."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    cfg = [1024, 4]
    scale_kernel[(triton.cdiv(n, cfg[0]),)](x, y, n, BLOCK=cfg[0], num_warps=cfg[1])
    return y
