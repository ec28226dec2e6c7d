"""A row softmax of one block a row, its block from an `@triton.autotune` list pruned by the row length: the list
offers `BLOCK_N` 1024, 2048 and 4096 (rows of at most 4096), and `prune_configs_by`'s early prune keeps only the
blocks that cover the row (`BLOCK_N >= n_cols`), so every size up to 4096 runs a covering block."""

import torch
import triton
import triton.language as tl


def _covering(configs, nargs, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK_N"] >= nargs["n_cols"]]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 1024}, num_warps=4),
        triton.Config({"BLOCK_N": 2048}, num_warps=8),
        triton.Config({"BLOCK_N": 4096}, num_warps=8),
    ],
    key=["n_cols"],
    prune_configs_by={"early_config_prune": _covering},
)
@triton.jit
def softmax_rows(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


def run(x):
    n_rows, n_cols = x.shape
    assert n_cols <= 4096
    y = torch.empty_like(x)
    softmax_rows[(n_rows,)](x, y, n_cols)
    return y
