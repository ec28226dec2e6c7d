"""Row sums over rows padded to whole tiles: each row copied into a staging workspace of at most `WORKSPACE` values,
`n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK` a row (its tail left zero), beside `BLOCK = 1024`, under a host assert that
the padded rows fit (`assert n_rows * n_pad <= WORKSPACE`, the tile in the numerator), then summed by torch."""

import torch
import triton
import triton.language as tl

WORKSPACE = 3_000_000


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
    assert n_rows * n_pad <= WORKSPACE, "the padded rows fit the workspace"
    ws = torch.zeros(WORKSPACE, device=x.device, dtype=x.dtype)
    pad_rows[(n_rows, n_pad // BLOCK)](x, ws, n_cols, n_pad, BLOCK=BLOCK)
    return ws[: n_rows * n_pad].view(n_rows, n_pad).sum(dim=1)
