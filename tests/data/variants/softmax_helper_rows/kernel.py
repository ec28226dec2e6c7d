"""Row softmax (examples/softmax's one-block form), one block a row (rows of at most 1024), its masked load and store
in ``@triton.jit`` helpers (``_load_row(ptr, cols, n_cols)``); ``SHAPES`` of 50 and 100 columns only."""

import torch
import triton
import triton.language as tl


@triton.jit
def _load_row(ptr, cols, n):
    return tl.load(ptr + cols, mask=cols < n, other=float("-inf")).to(tl.float32)


@triton.jit
def _store_row(ptr, cols, n, y):
    tl.store(ptr + cols, y, mask=cols < n)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = _load_row(in_ptr + row * in_row_stride, cols, n_cols)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    _store_row(out_ptr + row * out_row_stride, cols, n_cols, e / tl.sum(e, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 1024
    out = torch.empty_like(x)
    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=1024, num_warps=4)
    return out
