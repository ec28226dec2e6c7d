"""Row softmax, three passes over the row in chunks of BLOCK_SIZE (examples/softmax), used at prime sizes."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride
    running_max = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        running_max = tl.maximum(running_max, x)
    row_max = tl.max(running_max, axis=0)
    running_sum = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        running_sum += tl.exp(x - row_max)
    denominator = tl.sum(running_sum, axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) / denominator
        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=16, num_warps=4, num_stages=1)
    return out
