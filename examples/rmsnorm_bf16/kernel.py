"""RMSNorm over the last dimension with a weight, y = x / sqrt(mean(x^2) + eps) * w, in bf16.

One program per row, two passes over the row in chunks of BLOCK_SIZE columns (sum of squares, then
normalize and scale). The first version is written by someone who gave every row a full block of
1024 threads: num_warps=32 for a 2048-column row, so each thread loads two 16-bit values per pass,
the row's reduction crosses 32 warps through shared memory, and few rows fit on an SM at once. The
row kernels of the first examples had their best at 2-4 warps (docs/results.md). kernelopt tunes
the launch keywords (BLOCK_SIZE, num_warps, num_stages).
"""

import torch
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, w_ptr, x_row_stride, y_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride

    # pass 1: mean of squares, accumulated in fp32
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)

    # pass 2: normalize, scale, write
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def run(x, weight):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    rms_norm_kernel[(n_rows,)](
        x, y, weight, x.stride(0), y.stride(0), n_cols, EPS, BLOCK_SIZE=2048, num_warps=32, num_stages=1
    )
    return y
