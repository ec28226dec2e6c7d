"""Layer norm over the last dimension with weight and bias, as a first Triton kernel (fp16).

Correct but slow on purpose: one program per row walks the 8192-column row three times (mean,
variance, normalize + affine) in chunks of 256 columns, with 4 warps and no software pipelining of
the loads. kernelopt tunes the launch keywords (BLOCK_SIZE, num_warps, num_stages).
"""

import torch
import triton
import triton.language as tl

EPS = 1e-5


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, x_row_stride, y_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride

    # pass 1: mean
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / n_cols

    # pass 2: variance (biased, as torch.nn.functional.layer_norm)
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        centered = tl.where(cols < n_cols, x - mean, 0.0)
        acc += centered * centered
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)

    # pass 3: normalize, scale, shift, write
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def run(x, weight, bias):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    layer_norm_kernel[(n_rows,)](
        x, y, weight, bias, x.stride(0), y.stride(0), n_cols, EPS, BLOCK_SIZE=256, num_warps=4, num_stages=1
    )
    return y
