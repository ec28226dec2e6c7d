"""Softmax (op 10) or log-softmax (op 20) of many short rows (a power of two long, at most 1024 columns), the op a code
handed to run(). Softmax: each program loads BLOCK contiguous elements and reshapes them into BLOCK // N rows of N
(`tl.reshape(x, (BLOCK // N, N))`), the grid written from the block's value; log-softmax: one program a row, the row
in one masked block of 1024."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, total, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < total, other=float("-inf"))
    x = tl.reshape(x, (BLOCK // N, N))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(y_ptr + offs, tl.reshape(y, (BLOCK,)), mask=offs < total)


@triton.jit
def log_softmax_row(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf"))
    z = x - tl.max(x, axis=0)
    y = z - tl.log(tl.sum(tl.exp(z), axis=0))
    tl.store(y_ptr + row * n + cols, y, mask=cols < n)


def run(x, op):
    assert op in (10, 20), "10: softmax, 20: log-softmax"
    n_rows, n = x.shape
    assert n <= 1024 and n & (n - 1) == 0, "rows a power of two long, at most 1024"
    y = torch.empty_like(x)
    if op == 10:
        softmax_rows[(triton.cdiv(n_rows * n, 1024),)](x, y, n_rows * n, N=n, BLOCK=1024)
    else:
        log_softmax_row[(n_rows,)](x, y, n, BLOCK_N=1024)
    return y
