"""Row softmax over 8192 columns with a single warp per row: 256 live fp32 values per thread spill."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_spill_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, 0)
    num = tl.exp(x)
    y = num / tl.sum(num, 0)
    tl.store(out_ptr + row * n_cols + offs, y, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n_rows, n_cols = x.shape
    softmax_spill_kernel[(n_rows,)](out, x, n_cols, BLOCK=triton.next_power_of_2(n_cols), num_warps=1)
    return out
