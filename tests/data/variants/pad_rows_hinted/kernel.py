"""v154: v117's padded rows (pad_rows_stride) with the kernel's row stride hinted first, ``stride_row =
tl.multiple_of(stride, 16)`` (the form kernels give the compiler a stride's alignment in), then ``row * stride_row +
cols`` in int32: rows copied into a 2-D buffer of `n_rows` rows of `n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK`
values (its tail left zero) beside `BLOCK = 1024`, the kernel given `ws.stride(0)` (which is `n_pad`): right where
`n_rows * n_pad` stays below 2**31, then torch sums it."""

import torch
import triton
import triton.language as tl


@triton.jit
def pad_rows(x_ptr, ws_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    stride_row = tl.multiple_of(stride, 16)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(ws_ptr + row * stride_row + cols, x, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK
    ws = torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype)
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, ws.stride(0), BLOCK=BLOCK)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    torch.sum(ws, dim=1, out=y)
    return y
