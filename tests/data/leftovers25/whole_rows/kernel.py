"""Row sums over each row's whole tiles: ``n_whole = n_cols // BLOCK * BLOCK`` values a row (a size rounded down to
whole tiles) copied into a buffer of ``n_rows * n_whole`` values the kernel indexes in int32 (``row * n_whole +
cols``), right where it stays below 2**31; the tail past the whole tiles summed by torch (leftovers25, l84)."""

import torch
import triton
import triton.language as tl


@triton.jit
def whole_rows(x_ptr, ws_ptr, n_cols, n_whole, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_whole, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_whole
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(ws_ptr + row * n_whole + cols, x, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_whole = n_cols // BLOCK * BLOCK
    ws = torch.zeros(n_rows * n_whole, device=x.device, dtype=x.dtype)
    whole_rows[(n_rows,)](x, ws, n_cols, n_whole, BLOCK=BLOCK)
    return ws.view(n_rows, n_whole).sum(dim=1) + x[:, n_whole:].sum(dim=1)
