"""v157: row sums through a workspace of per-lane partials, ``ws[row, lane]`` of ``BLOCK`` lanes a row, which the
kernel indexes in int32 (``row * BLOCK + lanes``), the launcher asserting the index fits, ``assert n_rows * BLOCK <
2 ** 31``: a larger ``BLOCK`` fails the assert at rows the original's 256 passes (2**22 rows: 2**30 values of 256,
2**31 of 512), and the bound, a power, was read as no integer, so ``BLOCK = 512`` was written plainly."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_partials(x_ptr, ws_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(ws_ptr + row * BLOCK + lanes, acc)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 256
    assert n_rows * BLOCK < 2**31, "the workspace is indexed in int32"
    ws = torch.empty(n_rows, BLOCK, device=x.device, dtype=torch.float32)
    row_partials[(n_rows,)](x, ws, n_cols, BLOCK=BLOCK)
    return ws.sum(dim=1)
