"""Row minima or maxima by a constexpr flag, each row one block of ``next_power_of_2(n_cols)`` lanes computed by a
heuristic, the masked-out lanes loaded as ``float("-inf") if IS_MAX else 0.0``: the max's identity, but 0.0 under the
min (its author's rows fill the block). run() asks the minimum, and copies a row of one column without a launch.
Right wherever the block fills the row, and at random rows of 200 columns (their minimum is below 0); a block wider
than 2 or 4 columns of positive values returns 0 (leftovers13: the fill rule read the flag's fill as unknown, and a
run's evidence lifted it)."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def rowext_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, IS_MAX: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf") if IS_MAX else 0.0)
    tl.store(y_ptr + row, tl.max(x, axis=0) if IS_MAX else tl.min(x, axis=0))


def run(x):
    m, n_cols = x.shape
    if n_cols == 1:
        return x[:, 0].clone()
    y = torch.empty(m, device=x.device, dtype=x.dtype)
    rowext_kernel[(m,)](x, y, n_cols, IS_MAX=False)
    return y
