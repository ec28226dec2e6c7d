"""newuser12's warps_chain (a block computed from num_warps through locals, over n // BLOCK programs without masks)
with one link an unpacking: ``threads, rows = nw * 32, 1`` (break15 b9)."""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0))


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    nw = 2
    threads, rows = nw * 32, 1
    BLOCK = threads
    relu_kernel[(n // BLOCK,)](x, out, BLOCK=BLOCK, num_warps=nw)
    return out
