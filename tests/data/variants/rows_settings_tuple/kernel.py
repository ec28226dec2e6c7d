"""v102's row sums with the row's block and the warps from one settings helper (Unsloth's form), `BLOCK_N, num_warps
= calculate_settings(n_cols)`, the helper raising past `MAX_FUSED_SIZE = 65536`, `ROWS = 4`: the tile `(ROWS,
BLOCK_N)` within Triton's 1048576 values at every size the original takes."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"n = {n} exceeds the maximum block {MAX_FUSED_SIZE}")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def run(x):
    n_rows, n_cols = x.shape
    BLOCK_N, num_warps = calculate_settings(n_cols)
    ROWS = 4
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[(triton.cdiv(n_rows, ROWS),)](
        x, y, n_rows, n_cols, ROWS=ROWS, BLOCK_N=BLOCK_N, num_warps=num_warps
    )
    return y
