"""Row softmax in the layout of Triton's own tutorial: pointers to the row's start, column offsets from
tl.arange, a mask assigned from the column offsets and passed to the load and the store."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = in_ptr + row_idx * in_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
    numerator = tl.exp(row - tl.max(row, axis=0))
    result = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row_idx * out_row_stride + col_offsets, result, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = 1024
    assert n_cols <= BLOCK_SIZE
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
    return y
