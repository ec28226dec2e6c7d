"""A fused per-head RMS norm and rotary embedding of queries and keys (QK-norm, as Qwen3 and OLMo-2 apply it before
attention), written for the thirtieth trial: q (T, Hq, D) and k (T, Hk, D) float16, each head normalized over D with
its own weight, then rotated by the cos / sin of its token's position (the neox form: the first half against the
second). One launch of the same kernel a tensor, in a loop over (q, k); ``BLOCK_H`` heads of one token a program,
the head count capped by a module constant."""

import torch
import triton
import triton.language as tl

HEADS_CAP = 8


@triton.jit
def _rms_scale(x1, x2, D: tl.constexpr, eps):
    ms = (tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / D
    return tl.rsqrt(ms + eps)


@triton.jit
def _qk_norm_rope(
    X, Out, Wn, Cos, Sin, Pos, H, s_t, s_h, eps,
    HALF: tl.constexpr, BLOCK_HALF: tl.constexpr, BLOCK_H: tl.constexpr,
):  # fmt: skip
    t = tl.program_id(0)
    hb = tl.program_id(1)
    heads = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    d = tl.arange(0, BLOCK_HALF)
    dm = d < HALF
    m = (heads[:, None] < H) & dm[None, :]
    offs = t.to(tl.int64) * s_t + heads[:, None] * s_h + d[None, :]
    x1 = tl.load(X + offs, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(X + offs + HALF, mask=m, other=0.0).to(tl.float32)
    r = _rms_scale(x1, x2, 2 * HALF, eps)
    w1 = tl.load(Wn + d, mask=dm, other=0.0).to(tl.float32)
    w2 = tl.load(Wn + HALF + d, mask=dm, other=0.0).to(tl.float32)
    y1 = x1 * r[:, None] * w1[None, :]
    y2 = x2 * r[:, None] * w2[None, :]
    p = tl.load(Pos + t).to(tl.int64)
    c = tl.load(Cos + p * HALF + d, mask=dm, other=0.0)[None, :]
    s = tl.load(Sin + p * HALF + d, mask=dm, other=0.0)[None, :]
    tl.store(Out + offs, (y1 * c - y2 * s).to(Out.dtype.element_ty), mask=m)
    tl.store(Out + offs + HALF, (y2 * c + y1 * s).to(Out.dtype.element_ty), mask=m)


def run(q, k, q_weight, k_weight, cos, sin, positions, eps=1e-6):
    T, _, D = q.shape
    HALF = D // 2
    outs = []
    for x, weight in ((q, q_weight), (k, k_weight)):
        H = x.shape[1]
        out = torch.empty_like(x)
        BLOCK_H = min(triton.next_power_of_2(H), HEADS_CAP)
        grid = (T, triton.cdiv(H, BLOCK_H))
        _qk_norm_rope[grid](
            x, out, weight, cos, sin, positions, H, x.stride(0), x.stride(1), eps,
            HALF=HALF, BLOCK_HALF=triton.next_power_of_2(HALF), BLOCK_H=BLOCK_H, num_warps=2,
        )  # fmt: skip
        outs.append(out)
    return tuple(outs)
