"""Row-wise scale with a grid that repeats the block-size literal (kept consistent on edit)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    grid = ((n + 1023) // 1024,)   # one program per 1024 elements
    scale_kernel[grid](x, out, n, BLOCK=1024, num_warps=8, num_stages=2)
    return out


def run_cdiv(x):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out
