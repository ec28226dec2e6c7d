"""Row softmax as a first Triton kernel: one program per row, three passes over the row (fp16).

Correct but slow on purpose: the row is walked in chunks of 128 columns three times (row max, sum of
exponentials, normalized write), with 4 warps and no software pipelining of the loads, so each
program issues many small dependent loads. kernelopt tunes the launch keywords (BLOCK_SIZE,
num_warps, num_stages).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    in_row = in_ptr + row * in_row_stride
    out_row = out_ptr + row * out_row_stride

    # pass 1: the row maximum
    running_max = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        running_max = tl.maximum(running_max, x)
    row_max = tl.max(running_max, axis=0)

    # pass 2: the sum of exponentials (masked columns give exp(-inf) = 0)
    running_sum = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        running_sum += tl.exp(x - row_max)
    denominator = tl.sum(running_sum, axis=0)

    # pass 3: normalize and write
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) / denominator
        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=128, num_warps=4, num_stages=1)
    return out
