"""Per-column mean and biased variance of a (M, N) float32 matrix (batch-norm statistics over the batch) written for
the thirty-first trial: one program a band of ``BLOCK_N`` columns walks the rows in ``BLOCK_M`` steps keeping sums of
x and x * x in float32 after shifting by the first row (so the variance does not cancel). The column band can be
set from the environment (``COLSTATS_BLOCK_N``) for debugging; the row step is a launch literal."""

import os

import torch
import triton
import triton.language as tl

BLOCK_N = int(os.environ.get("COLSTATS_BLOCK_N", "32"))


@triton.jit
def _colstats(X, Mean, Var, M, N, s_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cm = cols < N
    shift = tl.load(X + cols, mask=cm, other=0.0)
    s1 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    s2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        msk = (rows[:, None] < M) & cm[None, :]
        v = tl.load(X + rows[:, None].to(tl.int64) * s_xm + cols[None, :], mask=msk, other=0.0)
        d = tl.where(msk, v - shift[None, :], 0.0)
        s1 += d
        s2 += d * d
    t1 = tl.sum(s1, axis=0) / M
    t2 = tl.sum(s2, axis=0) / M
    tl.store(Mean + cols, shift + t1, mask=cm)
    tl.store(Var + cols, tl.maximum(t2 - t1 * t1, 0.0), mask=cm)


def run(x):
    M, N = x.shape
    mean = torch.empty(N, device=x.device, dtype=torch.float32)
    var = torch.empty(N, device=x.device, dtype=torch.float32)
    _colstats[(triton.cdiv(N, BLOCK_N),)](x, mean, var, M, N, x.stride(0), BLOCK_M=16, BLOCK_N=BLOCK_N, num_warps=4)
    return mean, var
