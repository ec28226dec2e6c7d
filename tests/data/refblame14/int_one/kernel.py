"""A row mean in Inductor's persistent-reduction form (breaker13's inductor_per, reduced): the row length ``rnumel``
a plain int argument read as ``rnumel.to(tl.float32)``. Triton's JIT makes an int argument equal to 1 a constexpr,
which has no ``.to``: on a GPU the kernel does not compile at rows of one element (H100, 2026-12-06), where
Triton's interpreter runs it."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_mean(x_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rindex = tl.arange(0, RBLOCK)[None, :]
    xmask = xindex < xnumel
    rmask = rindex < rnumel
    x = tl.load(x_ptr + rindex + rnumel * xindex, xmask & rmask, other=0.0)
    total = tl.sum(x, 1)[:, None]
    tl.store(out_ptr + xindex, total / rnumel.to(tl.float32), xmask)


def run(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_mean[(triton.cdiv(M, 8),)](x, out, M, N, XBLOCK=8, RBLOCK=64)
    return out
