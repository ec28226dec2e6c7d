"""refblame14's int_one as the CPU sees the GPU: on the H100 (2026-12-06) the row mean does not compile at rows of one
element (``rnumel`` = 1 is a constexpr there, which has no ``.to``), where Triton's interpreter runs it; here ``run``
raises at N=1 as the GPU's compile does (an ``assert``), so the compile pool, which compiles on the smallest ``SHAPES``
entry (M=8,N=1), fails every candidate there as it did on the H100."""

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
    tl.store(out_ptr + xindex, total / rnumel, xmask)


def run(x):
    M, N = x.shape
    assert N > 1, "rnumel = 1 is a constexpr: no .to"
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_mean[(triton.cdiv(M, 8),)](x, out, M, N, XBLOCK=8, RBLOCK=64)
    return out
