"""n75's ReLU (``n // BLOCK`` programs, no masks) with its launch options in a module-level tuple unpacked in ``run``
(break17 b16): ``nw, _ = CFG``, ``BLOCK = nw * 32``; a pick of ``num_warps`` moves the block with it."""

import torch
import triton
import triton.language as tl

CFG = (2, 3)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0.0))


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    nw, ns = CFG
    BLOCK = nw * 32
    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, num_warps=nw, num_stages=ns)
    return y
