"""Row log-sum-exp, log(sum(exp(x))) over the last dimension, in one pass with a running maximum."""

import torch
import triton
import triton.language as tl


@triton.jit
def logsumexp_kernel(out_ptr, x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * stride
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n_cols, other=float("-inf"))
        m_new = tl.maximum(m, x)
        rescale = tl.where(m_new == float("-inf"), 1.0, tl.exp(m - m_new))
        s = s * rescale + tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    top = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - top)), axis=0)
    tl.store(out_ptr + row, top + tl.log(total))


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    logsumexp_kernel[(n_rows,)](out, x, x.stride(0), n_cols, BLOCK=512, num_warps=4)
    return out
