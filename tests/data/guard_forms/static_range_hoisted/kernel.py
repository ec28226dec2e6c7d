"""Row softmax unrolled over N_CHUNKS chunks with tl.static_range, the column range built once before the loops
and each chunk's mask comparing it with what is left of the row (cols < n_cols - c * BLOCK)."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_left(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr, N_CHUNKS: tl.constexpr):
    base = tl.program_id(0) * stride
    cols = tl.arange(0, BLOCK)
    m = float("-inf")
    for c in tl.static_range(N_CHUNKS):
        x = tl.load(x_ptr + base + c * BLOCK + cols, mask=cols < n_cols - c * BLOCK, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for c in tl.static_range(N_CHUNKS):
        x = tl.load(x_ptr + base + c * BLOCK + cols, mask=cols < n_cols - c * BLOCK, other=float("-inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for c in tl.static_range(N_CHUNKS):
        x = tl.load(x_ptr + base + c * BLOCK + cols, mask=cols < n_cols - c * BLOCK, other=float("-inf"))
        tl.store(y_ptr + base + c * BLOCK + cols, tl.exp(x - m) / s, mask=cols < n_cols - c * BLOCK)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 128
    y = torch.empty_like(x)
    softmax_left[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK=BLOCK, N_CHUNKS=triton.cdiv(n_cols, BLOCK))
    return y
