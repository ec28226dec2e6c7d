"""Online row softmax: three passes over the row in chunks of BLOCK with tl.range (max, sum, write), so any
block covers any row length."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_chunks(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    base = tl.program_id(0) * stride
    m = float("-inf")
    for start in tl.range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for start in tl.range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=float("-inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in tl.range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_ptr + base + cols, tl.exp(x - m) / s, mask=cols < n_cols)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 64
    y = torch.empty_like(x)
    softmax_chunks[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK=BLOCK, num_warps=4)
    return y
