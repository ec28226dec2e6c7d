"""v162: row sums in chunks of ``BLOCK_K`` without masks (the caller keeps its rows a multiple of 64 wide), the chunks
walked by a ``while`` loop, ``k = 0; while k < K: ...; k += BLOCK_K`` (a form ported from CUDA's strided loops):
read by no rule, so ``BLOCK_K = 128`` was written plainly, and at K = 192 each row's second chunk reads 64 values of
the next row, where the original's three chunks of 64 read none."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, K, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    k = 0
    while k < K:
        acc += tl.load(x_ptr + row * K + k + tl.arange(0, BLOCK_K)).to(tl.float32)
        k += BLOCK_K
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def run(x):
    M, K = x.shape
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK_K = 64
    row_sum[(M,)](x, y, K, BLOCK_K=BLOCK_K)
    return y
