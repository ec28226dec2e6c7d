"""Row max through a block pointer walked along the row with tl.advance, both axes boundary-checked and padded with
zeros (the author's rows are a multiple of 64 columns, so no padding is ever read)."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_max(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    blk = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    m = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    for _ in range(0, N, BLOCK_N):
        x = tl.load(blk, boundary_check=(0, 1), padding_option="zero")
        m = tl.maximum(m, tl.max(x, axis=1))
        blk = tl.advance(blk, (0, BLOCK_N))
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(y_ptr + rows, m, mask=rows < M)


def run(x):
    M, N = x.shape
    assert N % 64 == 0
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    row_max[(triton.cdiv(M, 16),)](x, y, M, N, BLOCK_M=16, BLOCK_N=64)
    return y
