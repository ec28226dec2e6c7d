"""Row sums, one program a row: the whole blocks of BLOCK columns without masks, then the rest of the row (less than
a block) in one masked block of TAIL columns, a setting of its own; rows of at least 256 columns. Right at every
row the original takes while TAIL covers what BLOCK leaves (TAIL >= BLOCK - 1): a larger BLOCK, or a smaller TAIL,
leaves part of a long rest unsummed."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    n_full = (n_cols // BLOCK) * BLOCK
    for start in range(0, n_full, BLOCK):
        acc += tl.load(base + start + tl.arange(0, BLOCK))
    cols = n_full + tl.arange(0, TAIL)
    rest = tl.load(base + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0) + tl.sum(rest, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols >= 256, "rows of at least 256 columns"
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(n_rows,)](x, y, n_cols, BLOCK=128, TAIL=128)
    return y
