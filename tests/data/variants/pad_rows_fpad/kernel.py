"""v143: v117's padded rows with the buffer padded by `F.pad`, `ws = F.pad(torch.zeros_like(x), (0, n_pad - n_cols))`
(a row of `n_cols` zeros padded on the right to `n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK`, `BLOCK = 1024`), the
kernel given `ws.stride(0)` (`n_pad`: `F.pad` makes a new contiguous tensor) and indexing in int32 (`row * stride +
cols`): right where `n_rows * n_pad` stays below 2**31, then torch sums it."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def pad_rows(x_ptr, ws_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(ws_ptr + row * stride + cols, x, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK
    ws = F.pad(torch.zeros_like(x), (0, n_pad - n_cols))
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, ws.stride(0), BLOCK=BLOCK)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    torch.sum(ws, dim=1, out=y)
    return y
