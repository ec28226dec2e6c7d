"""A segmented (varlen) prefix sum written for the twenty-ninth trial: ``x`` is a flat (tokens, D) batch of sequences
whose starts are ``cu_seqlens``; each program takes one sequence and a ``BLOCK_D`` slice of features and walks the
sequence in chunks of ``CHUNK`` tokens, a ``tl.cumsum`` within the chunk plus the carry of the chunks before it,
accumulated in float32. The chunk is a module constant the author marked tunable; the feature slice is capped."""

import torch
import triton
import triton.language as tl

CHUNK = 16  # kernelopt: tunable


@triton.jit
def _seg_cumsum(X, Out, Cu, D, stride_t, CHUNK: tl.constexpr, BLOCK_D: tl.constexpr, REVERSE: tl.constexpr):
    seq = tl.program_id(0)
    pid_d = tl.program_id(1)
    bos = tl.load(Cu + seq)
    eos = tl.load(Cu + seq + 1)
    feats = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    carry = tl.zeros((BLOCK_D,), dtype=tl.float32)
    n = eos - bos
    for c in range(0, tl.cdiv(n, CHUNK)):
        if REVERSE:
            t = eos - 1 - (c * CHUNK + tl.arange(0, CHUNK))
            ok = t >= bos
        else:
            t = bos + c * CHUNK + tl.arange(0, CHUNK)
            ok = t < eos
        m = ok[:, None] & (feats[None, :] < D)
        offs = t[:, None].to(tl.int64) * stride_t + feats[None, :]
        v = tl.load(X + offs, mask=m, other=0.0).to(tl.float32)
        s = tl.cumsum(v, axis=0) + carry[None, :]
        tl.store(Out + offs, s.to(Out.dtype.element_ty), mask=m)
        carry += tl.sum(v, axis=0)


def run(x, cu_seqlens, reverse=False):
    T, D = x.shape
    out = torch.empty_like(x)
    B = cu_seqlens.numel() - 1
    BLOCK_D = min(triton.next_power_of_2(D), 64)
    grid = (B, triton.cdiv(D, BLOCK_D))
    _seg_cumsum[grid](x, out, cu_seqlens, D, x.stride(0), CHUNK=CHUNK, BLOCK_D=BLOCK_D, REVERSE=reverse)
    return out
