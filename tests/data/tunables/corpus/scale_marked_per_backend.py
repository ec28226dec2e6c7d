"""A scaling kernel whose block size depends on the backend, chosen at import: each branch's constant is
marked tunable. A marker inside a function cannot be read, and a ``**`` argument built by a helper
cannot either: both are said, not skipped."""

import torch
import triton
import triton.language as tl

if torch.version.hip is not None:
    BLOCK = 512  # kernelopt: tunable
else:
    BLOCK = 1024  # kernelopt: tunable


def compile_options(x):
    return {"num_warps": 4 if x.numel() < 65536 else 8}


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * alpha, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    alpha = 2.0  # kernelopt: tunable
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, alpha, BLOCK=BLOCK, **compile_options(x))
    return out
