"""v119's padded rows with the workspace kept in a module cache by its shape (a project's workspace cache, made once
a shape and reused): `_workspace(n_rows, n_pad, x)` stores `torch.zeros(rows, cols)` under `(rows, cols, dtype,
device)` and returns the cached one, `n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK` beside `BLOCK = 1024`, the kernel
given `ws.stride(0)` (which is `n_pad`) and indexing in int32 (`row * stride + cols`): right where `n_rows * n_pad`
stays below 2**31. The cache's buffer is zeroed again before each use (its tail must read as zeros)."""

import torch
import triton
import triton.language as tl

_WORKSPACES = {}


@triton.jit
def pad_rows(x_ptr, ws_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(ws_ptr + row * stride + cols, x, mask=mask)


def _workspace(rows, cols, like):
    key = (rows, cols, like.dtype, like.device)
    if key not in _WORKSPACES:
        _WORKSPACES[key] = torch.zeros(rows, cols, device=like.device, dtype=like.dtype)
    return _WORKSPACES[key].zero_()


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 1024
    n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK
    ws = _workspace(n_rows, n_pad, x)
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, ws.stride(0), BLOCK=BLOCK)
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    torch.sum(ws, dim=1, out=y)
    return y
