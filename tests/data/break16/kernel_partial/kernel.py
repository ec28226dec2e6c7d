import torch
import triton
import triton.language as tl


@triton.jit
def _row_loop(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < N
        tl.store(y_ptr + row * N + cols, tl.load(x_ptr + row * N + cols, mask=m) * 2.0, mask=m)


@triton.jit
def _row_one(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * N + cols, x - tl.sum(x, axis=0) / N, mask=m)


def _launch(x, kernel=_row_loop):
    M, N = x.shape
    y = torch.empty_like(x)
    kernel[(M,)](x, y, N, BLOCK=1024)
    return y


import functools


def run(x):
    f = functools.partial(_launch, kernel=_row_one)
    return f(x)
