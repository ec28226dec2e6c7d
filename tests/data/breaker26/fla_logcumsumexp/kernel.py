"""flash-linear-attention's chunked log-cumsum-exp (``fla/ops/utils/logcumsumexp.py``, launched as ``fwd_pre`` in
``fla/ops/abc/chunk.py``'s forward; ``exp`` / ``log`` from ``fla/ops/utils/op.py``, ``autotune_cache_kwargs`` from
``fla/utils``; MIT). A CHUNKED SCAN over ``T``: ``@triton.autotune`` of a 9-config COMPREHENSION (``BT`` 16 / 32 / 64
x ``num_warps`` 2 / 4 / 8) keyed on ``['S']`` with ``**autotune_cache_kwargs``, ``@triton.jit(do_not_specialize=
['T'])``; the running max and normalizer carried in float32 over ``cdiv(T, BT)`` chunks, each chunk's prefix sums a
``tl.dot`` of a lower-triangular ones matrix ``(BT, BT)`` with the chunk, ``allow_tf32=False`` (``BT`` sets both the
chain and the dot's order); ``tl.arange(0, S)`` unmasked (``S`` a power of two, at least 16 for the dot); the
chunk's rows past ``T`` loaded as 0.0 and kept out by the store's mask; the program id cast to int64 before ``i_bh *
T*S``. ``run`` is fla's ``fwd_pre``: ``z = torch.empty_like(s, dtype=torch.float)``, grid ``(B * H,)``, ``T`` and
``S`` by keyword.

Kept as the authors wrote it; ``exp`` / ``log`` as fla's without ``FLA_USE_FAST_OPS``, ``autotune_cache_kwargs``
written here; comments reworded."""

import inspect

import torch
import triton
import triton.language as tl


@triton.jit
def exp(x):
    return tl.exp(x.to(tl.float32))


@triton.jit
def log(x):
    return tl.log(x.to(tl.float32))


# cache_results exists from Triton 3.4 on
SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": False} if SUPPORTS_AUTOTUNE_CACHE else {}


@triton.autotune(
    configs=[
        triton.Config({'BT': BT}, num_warps=num_warps)
        for BT in [16, 32, 64]
        for num_warps in [2, 4, 8]
    ],
    key=['S'],
    **autotune_cache_kwargs,
)
@triton.jit(do_not_specialize=['T'])
def logcumsumexp_fwd_kernel(
    s,
    z,
    T,
    S: tl.constexpr,
    BT: tl.constexpr,
):
    i_bh = tl.program_id(0).to(tl.int64)
    o_i = tl.arange(0, BT)
    m_s = tl.where(o_i[:, None] >= o_i[None, :], 1., 0.)

    b_mp = tl.full([S], float('-inf'), dtype=tl.float32)
    b_zp = tl.zeros([S], dtype=tl.float32)
    for i_t in range(tl.cdiv(T, BT)):
        o_t = i_t * BT + tl.arange(0, BT)
        m_t = o_t < T
        p_s = s + i_bh * T*S + o_t[:, None] * S + tl.arange(0, S)[None, :]
        p_z = z + i_bh * T*S + o_t[:, None] * S + tl.arange(0, S)[None, :]

        # [BT, S]
        b_s = tl.load(p_s, mask=m_t[:, None], other=0.0).to(tl.float32)
        # [S,]
        b_mc = tl.max(b_s, 0)
        b_mc = tl.maximum(b_mp, b_mc)
        b_zp = b_zp * exp(b_mp - b_mc)
        # [BT, S]
        b_s = exp(b_s - b_mc)
        b_z = tl.dot(m_s, b_s, allow_tf32=False) + b_zp
        # [S,]
        b_zc = tl.max(b_z, 0)
        b_mp = b_mc
        b_zp = b_zc
        # [BT, BS]
        # small eps to prevent underflows
        b_z = log(tl.where(b_z != 0, b_z, 1e-20)) + b_mc
        tl.store(p_z, b_z.to(p_z.dtype.element_ty), mask=m_t[:, None])


def fwd_pre(s, B, H, T, S):
    # the normalizer kept in float32
    z = torch.empty_like(s, dtype=torch.float)
    grid = (B * H,)
    logcumsumexp_fwd_kernel[grid](
        s, z,
        T=T, S=S,
    )
    return z


def run(s):
    B, H, T, S = s.shape
    return fwd_pre(s, B, H, T, S)
