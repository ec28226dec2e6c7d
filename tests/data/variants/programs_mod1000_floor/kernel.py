"""A vector scaled by two in blocks of BLOCK, at least 8 programs, in whole records of 1000 (v70's kernel asserting
n % 1000 == 0): a larger block asks more of the size, and the size's halvings leave the records' grain."""

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
    BLOCK = 256
    assert n % 1000 == 0, "whole records of 1000"
    assert triton.cdiv(n, BLOCK) >= 8, "at least 8 programs"
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
