"""A row-wise running sum that walks each row in chunks: any block is correct, the literal is the
default the authors left to tune ("TODO: tune on the target board"), and short rows get a block that
covers them in one chunk. ``UNROLL`` is passed but the body never reads it: not a knob."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr, UNROLL: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        acc = tl.cumsum(x, axis=0) + carry
        tl.store(out_ptr + row * stride + cols, acc.to(out_ptr.dtype.element_ty), mask=mask)
        carry = carry + tl.sum(x, axis=0)


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    # TODO: tune on the target board
    BLOCK_SIZE = 1024
    if n_cols <= 256:
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
    row_cumsum_kernel[(n_rows,)](x, out, x.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, UNROLL=4)
    return out
