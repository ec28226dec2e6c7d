"""Online softmax over the rows of a 16384 x 8192 fp32 matrix (one program per row, two passes).

Pass 1 keeps a running maximum and a running sum rescaled as the maximum grows (Milakov and Gimelshein,
"Online normalizer calculation for softmax", 2018); pass 2 writes the normalized row. The first version
walks the row in chunks of 256 columns with 4 warps. Knobs: BLOCK_SIZE, num_warps, num_stages.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(y_ptr, x_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
        m_new = tl.maximum(m, x)
        # lanes that have seen only masked columns keep m = -inf: rescale by 1 there, not by exp(nan)
        scale = tl.where(m_new == float("-inf"), 1.0, tl.exp(m - m_new))
        s = s * scale + tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=float("-inf"))
        tl.store(y_row + cols, tl.exp(x - row_max) / total, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    online_softmax_kernel[(n_rows,)](y, x, x.stride(0), n_cols, BLOCK_SIZE=256, num_warps=4, num_stages=1)
    return y
