"""y = x @ w (a GEMV) through block pointers (breaker5's bp_gemv) with its loads in ``@triton.jit`` helpers: rows are
bounds-checked (any M), the K axis is not (K a multiple of 32 by the caller's contract), so the loop walks whole
BLOCK_K steps with ``tl.advance``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _load_rows(blk):
    return tl.load(blk, boundary_check=(0,), padding_option="zero")


@triton.jit
def _load_whole(blk):
    return tl.load(blk)


@triton.jit
def _gemv_bp(x_ptr, w_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(base=x_ptr, shape=(M, K), strides=(K, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    w_blk = tl.make_block_ptr(base=w_ptr, shape=(K,), strides=(1,), offsets=(0,), block_shape=(BLOCK_K,), order=(0,))
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        x = _load_rows(x_blk)
        w = _load_whole(w_blk)
        acc += tl.sum(x * w[None, :], axis=1)
        x_blk = tl.advance(x_blk, (0, BLOCK_K))
        w_blk = tl.advance(w_blk, (BLOCK_K,))
    y_blk = tl.make_block_ptr(base=y_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK_M,), block_shape=(BLOCK_M,),
                              order=(0,))
    tl.store(y_blk, acc, boundary_check=(0,))


def run(x, w):
    M, K = x.shape
    assert K % 32 == 0, "K must be a multiple of 32"
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK_M = 16
    BLOCK_K = 32
    _gemv_bp[(triton.cdiv(M, BLOCK_M),)](x, w, y, M, K, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=4)
    return y
