"""A scalar tensor's test before an atomic, with Python's ``or``: a GPU compile never cuts short at a scalar tensor
(its value is not known when the kernel compiles), so every program adds one to the count; ``not`` of a scalar tensor
is its ``logical_not``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _double_counted(x_ptr, y_ptr, count_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    counted = pid >= 0 or tl.atomic_add(count_ptr, 1) >= 0
    keep = not (pid < 0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(keep and counted, x * 2.0, x), mask=mask)


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    count = torch.zeros(1, dtype=torch.int32, device=x.device)
    _double_counted[(triton.cdiv(n, 64),)](x, y, count, n, BLOCK=64)
    return y, count
