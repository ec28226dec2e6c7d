"""A row argmax over a large vocabulary written for the twenty-ninth trial (greedy sampling's last step): each row is
cut into ``splits`` column ranges, one program a (row, range), each walking its range in ``BLOCK_V`` steps and
keeping a running maximum and its first index; a second launch picks each row's winner among its splits (the lowest
index among equal maxima, as ``torch.argmax``). The split count is computed from the row length and capped; the step
is the row's next power of two capped by a module constant."""

import torch
import triton
import triton.language as tl

MAX_BLOCK_V = 1024
MAX_SPLITS = 16


@triton.jit
def _argmax_partial(
    Logits, PMax, PIdx, V, stride_row, cols_per_split, SPLITS: tl.constexpr, BLOCK_V: tl.constexpr
):
    row = tl.program_id(0)
    split = tl.program_id(1)
    start = split * cols_per_split
    end = tl.minimum(start + cols_per_split, V)
    best = tl.full((BLOCK_V,), float("-inf"), dtype=tl.float32)
    best_idx = tl.full((BLOCK_V,), 2147483647, dtype=tl.int32)
    base = Logits + row.to(tl.int64) * stride_row
    for c0 in range(start, end, BLOCK_V):
        cols = c0 + tl.arange(0, BLOCK_V)
        v = tl.load(base + cols, mask=cols < end, other=float("-inf")).to(tl.float32)
        take = v > best
        best = tl.where(take, v, best)
        best_idx = tl.where(take, cols, best_idx)
    m = tl.max(best, axis=0)
    idx = tl.min(tl.where(best == m, best_idx, 2147483647), axis=0)
    tl.store(PMax + row * SPLITS + split, m)
    tl.store(PIdx + row * SPLITS + split, idx)


@triton.jit
def _argmax_final(PMax, PIdx, Out, Val, SPLITS: tl.constexpr, BLOCK_S: tl.constexpr):
    row = tl.program_id(0)
    s = tl.arange(0, BLOCK_S)
    pm = tl.load(PMax + row * SPLITS + s, mask=s < SPLITS, other=float("-inf"))
    pi = tl.load(PIdx + row * SPLITS + s, mask=s < SPLITS, other=2147483647)
    m = tl.max(pm, axis=0)
    idx = tl.min(tl.where(pm == m, pi, 2147483647), axis=0)
    tl.store(Out + row, idx.to(tl.int64))
    tl.store(Val + row, m)


def run(logits):
    rows, V = logits.shape
    splits = min(MAX_SPLITS, triton.cdiv(V, 4096))
    cols_per_split = triton.cdiv(V, splits)
    BLOCK_V = min(MAX_BLOCK_V, triton.next_power_of_2(cols_per_split))
    pmax = torch.empty((rows, splits), dtype=torch.float32, device=logits.device)
    pidx = torch.empty((rows, splits), dtype=torch.int32, device=logits.device)
    _argmax_partial[(rows, splits)](
        logits, pmax, pidx, V, logits.stride(0), cols_per_split, SPLITS=splits, BLOCK_V=BLOCK_V, num_warps=4
    )
    out = torch.empty((rows,), dtype=torch.int64, device=logits.device)
    val = torch.empty((rows,), dtype=torch.float32, device=logits.device)
    _argmax_final[(rows,)](pmax, pidx, out, val, SPLITS=splits, BLOCK_S=triton.next_power_of_2(splits))
    return out, val
