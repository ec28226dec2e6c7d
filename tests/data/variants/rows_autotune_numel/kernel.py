"""v102's row sums with `ROWS` in an `@triton.autotune` list of one config, `triton.Config({"ROWS": 4})` keyed by
`n_cols`, beside `BLOCK_N = triton.next_power_of_2(n_cols)` at the launch, rows of at most 65536 columns: the tile
`(ROWS, BLOCK_N)` within Triton's 1048576 values at every size the original takes."""

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"ROWS": 4})], key=["n_cols"])
@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 65536, "one block a row"
    BLOCK_N = triton.next_power_of_2(n_cols)
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    rowsum_kernel[lambda meta: (triton.cdiv(n_rows, meta["ROWS"]),)](x, y, n_rows, n_cols, BLOCK_N=BLOCK_N)
    return y
