"""Row sums over whole blocks without masks, the block from an `@triton.autotune` list pruned by the row length: the
list offers `BLOCK` 64, 128 and 256 (rows a multiple of 64, asserted), and `prune_configs_by`'s early prune keeps only
the blocks that divide the row (`n_cols % BLOCK == 0`, as libraries prune an unmasked K loop's tiles), so every row
length the launch accepts runs a dividing block (64 at least)."""

import torch
import triton
import triton.language as tl


def _dividing(configs, nargs, **kwargs):
    return [c for c in configs if nargs["n_cols"] % c.kwargs["BLOCK"] == 0]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=2),
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 256}, num_warps=4),
    ],
    key=["n_cols"],
    prune_configs_by={"early_config_prune": _dividing},
)
@triton.jit
def row_sum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        acc += tl.load(x_ptr + row * n_cols + start + tl.arange(0, BLOCK))
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols % 64 == 0
    y = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    row_sum[(n_rows,)](x, y, n_cols)
    return y
