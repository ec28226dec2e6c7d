"""Each value doubled, y = 2 x: the launch's settings are one of a local table of configs chosen by size (``cfg =
configs[0] if n < 8192 else configs[1]``), its grid counting tiles of the chosen ``cfg[0]``."""

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
    configs = [(1024, 4), (4096, 8)]
    cfg = configs[0] if n < 8192 else configs[1]
    scale_kernel[(triton.cdiv(n, cfg[0]),)](x, y, n, BLOCK=cfg[0], num_warps=cfg[1])
    return y
