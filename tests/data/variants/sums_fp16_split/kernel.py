"""Row sums whose partial sums are kept in fp16 (a register-light accumulation, as low-precision kernels keep them):
`SPLIT = 8` programs a row, each summing every `SPLIT`-th block of `BLOCK = 256` columns lane by lane in an fp16
accumulator, then its lanes in fp32, added into the row's fp32 sum by `tl.atomic_add`. Each lane adds `n_cols /
(SPLIT * BLOCK)` values in fp16: right while a lane's sum stays below 2048 (past it, fp16's step of 2 drops every
value below 1), so the original sums rows up to about 8 M columns of values in [0, 1)."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums(x_ptr, y_ptr, n_cols, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    s = tl.program_id(1)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float16)
    for i in range(0, tl.cdiv(n_cols, SPLIT * BLOCK)):
        cols = (i * SPLIT + s) * BLOCK + lanes
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.atomic_add(y_ptr + row, tl.sum(acc.to(tl.float32), axis=0))


def run(x):
    n_rows, n_cols = x.shape
    BLOCK = 256
    SPLIT = 8
    y = torch.zeros(n_rows, device=x.device, dtype=torch.float32)
    partial_sums[(n_rows, SPLIT)](x, y, n_cols, SPLIT=SPLIT, BLOCK=BLOCK)
    return y
