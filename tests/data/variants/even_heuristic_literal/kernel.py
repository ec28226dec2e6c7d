"""Row sums over a loop of masked blocks with an ``EVEN_N`` fast path without masks, the flag given by the kernel's
own ``@triton.heuristics`` lambda from the block's value written again (``args["n_cols"] % 128 == 0`` beside
``BLOCK=128`` at the launch), as FlashAttention's ``EVEN_M`` / ``EVEN_N`` heuristics are written when the block is not
among the lambda's arguments: right at every row length."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["n_cols"] % 128 == 0})
@triton.jit
def row_sum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        if EVEN_N:
            x = tl.load(x_ptr + row * n_cols + cols)
        else:
            x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        acc += x
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    row_sum[(n_rows,)](x, y, n_cols, BLOCK=128)
    return y
