"""v128's padded rows with the workspace one flat module buffer grown by need (a project's scratch kept across calls,
reallocated only when a call needs more): `_workspace(n_rows, n_pad, x)` makes `torch.empty(need)` where the kept one
is smaller and returns its first `need` values viewed `(rows, cols)` and zeroed, `n_pad = triton.cdiv(n_cols, BLOCK) *
BLOCK` beside `BLOCK = 1024`, the kernel given `ws.stride(0)` (which is `n_pad`) and indexing in int32 (`row * stride +
cols`): right where `n_rows * n_pad` stays below 2**31."""

import torch
import triton
import triton.language as tl

_SCRATCH = None


@triton.jit
def pad_rows(x_ptr, ws_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(ws_ptr + row * stride + cols, x, mask=mask)


def _workspace(rows, cols, like):
    global _SCRATCH
    need = rows * cols
    if _SCRATCH is None or _SCRATCH.numel() < need or _SCRATCH.dtype != like.dtype or _SCRATCH.device != like.device:
        _SCRATCH = torch.empty(need, device=like.device, dtype=like.dtype)
    return _SCRATCH[:need].view(rows, cols).zero_()


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK
    ws = _workspace(n_rows, n_pad, x)
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, ws.stride(0), BLOCK=BLOCK)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    torch.sum(ws, dim=1, out=y)
    return y
