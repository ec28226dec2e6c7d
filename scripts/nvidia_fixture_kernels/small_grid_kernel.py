"""Row sums with one program per row and only 8 rows: 8 blocks on a 132-SM GPU. Too little parallelism."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))


def run(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(rows,)](x, out, cols, BLOCK=1024, num_warps=4)
    return out
