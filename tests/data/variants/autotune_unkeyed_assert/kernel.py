"""Rows of D values scaled by two, each row one program walking it in masked chunks of BLOCK_N, a chunk no wider
than the row (a static assert, as attention kernels write ``BLOCK_N <= HEAD_DIM``); its settings an autotune list
of one config keyed by the number of rows only: with one config Triton's autotuner neither benchmarks nor caches,
so the key's missing D is harmless as written."""

import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_N": 16}, num_warps=4)], key=["n_rows"])
@triton.jit
def scale_rows_kernel(x_ptr, y_ptr, n_rows, D: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= D)
    row = tl.program_id(0)
    for start in tl.static_range(0, D, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * D + cols, mask=cols < D)
        tl.store(y_ptr + row * D + cols, x * 2.0, mask=cols < D)


def run(x):
    n_rows, d = x.shape
    assert d >= 16 and d & (d - 1) == 0, "rows a power of two of at least 16 values"
    y = torch.empty_like(x)
    scale_rows_kernel[(n_rows,)](x, y, n_rows, D=d)
    return y
