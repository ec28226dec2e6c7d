"""Row sums over rows padded to whole tiles: each row copied into a buffer of `n_rows` rows of `n_pad =
triton.cdiv(n_cols, BLOCK) * BLOCK` values (its tail left zero) beside `BLOCK = 1024`, no bound on the buffer's length;
the kernel indexes it in int32 (`row * n_pad + cols`), right where `n_rows * n_pad` stays below 2**31, then torch sums
it."""

import torch
import triton
import triton.language as tl


@triton.jit
def pad_rows(x_ptr, ws_ptr, n_cols, n_pad, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(ws_ptr + row * n_pad + cols, x, mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK
    ws = torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype)
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, n_pad, BLOCK=BLOCK)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    torch.sum(ws.view(n_rows, n_pad), dim=1, out=y)
    return y
