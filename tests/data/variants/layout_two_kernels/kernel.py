"""Row sums of a matrix that is either row-major or a transposed view (its columns contiguous): a row-major input
is summed one program a row over masked blocks of BLOCK; a transposed one a tile of BLOCK_R rows a program, walking
the columns in whole blocks of BLOCK_K without a column mask, then the rest in one masked block of TAIL, a setting
of its own. Right at every size while TAIL covers what BLOCK_K leaves (TAIL >= BLOCK_K - 1)."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_cols, stride_r, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_r + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def rowsum_t_kernel(
    x_ptr, y_ptr, n_rows, n_cols, stride_c, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, TAIL: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    live = rows < n_rows
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    n_full = (n_cols // BLOCK_K) * BLOCK_K
    for start in range(0, n_full, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rows[:, None] + cols[None, :] * stride_c, mask=live[:, None], other=0.0)
        acc += tl.sum(x, axis=1)
    cols = n_full + tl.arange(0, TAIL)
    x = tl.load(x_ptr + rows[:, None] + cols[None, :] * stride_c, mask=live[:, None] & (cols[None, :] < n_cols), other=0.0)
    tl.store(y_ptr + rows, acc + tl.sum(x, axis=1), mask=live)


def run(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    if x.stride(1) == 1:
        rowsum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    else:
        assert x.stride(0) == 1, "a row-major matrix or a transposed one"
        rowsum_t_kernel[(triton.cdiv(n_rows, 32),)](x, y, n_rows, n_cols, x.stride(1), BLOCK_R=32, BLOCK_K=16, TAIL=16)
    return y
