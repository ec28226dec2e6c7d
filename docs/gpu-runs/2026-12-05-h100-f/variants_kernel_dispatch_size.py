"""Row softmax with two kernels, as libraries split by size: a row of at most 128 columns in one block, longer rows
walked in chunks of BLOCK (online max and sum), and run() picks by the row length."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_one_block(out_ptr, in_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def softmax_looped(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.exp(tl.where(new_m == -float("inf"), 0.0, m - new_m)) + tl.where(x == -float("inf"), 0.0, tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(tl.where(m == -float("inf"), -float("inf"), m - row_max)), axis=0)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
        tl.store(out_ptr + row * stride + cols, tl.exp(x - row_max) / total, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    if n_cols <= 128:
        softmax_one_block[(n_rows,)](y, x, x.stride(0), n_cols, BLOCK_SIZE=128, num_warps=4)
    else:
        softmax_looped[(n_rows,)](y, x, x.stride(0), n_cols, BLOCK=1024, num_warps=8, num_stages=4)
    return y
