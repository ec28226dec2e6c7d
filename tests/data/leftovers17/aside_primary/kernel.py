"""A scale whose launcher asks for at least 4 programs (an ``assert`` in ``run``): the entry of 100 elements, the
smallest (the primary in the interpreter), is a size the kernel as written (BLOCK=64: 2 programs) cannot run, as a
kernel that does not compile at one size on a GPU; it runs the entry of 2000 (leftovers17's l4)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = 64
    programs = triton.cdiv(n, BLOCK)
    assert programs >= 4, "at least 4 programs"
    scale_kernel[(programs,)](x, y, n, BLOCK=BLOCK)
    return y
