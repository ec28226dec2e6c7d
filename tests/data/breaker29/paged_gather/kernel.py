"""A paged KV-cache gather written for the twenty-ninth trial (the step before a dense attention over a paged cache):
``k_cache`` / ``v_cache`` are (pages, page_size, heads, D), ``block_table`` (B, max_pages) names each sequence's pages
in order, ``seq_lens`` (B,) its length; both caches' tokens are copied into contiguous (total, heads, D) buffers at
``cu_seqlens``. One program a (sequence, ``BLOCK_T`` tokens, head); the head's features in one block of
``next_power_of_2(D)``; the page size is read from the cache."""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kv(
    KC, VC, BT, Lens, Cu, KO, VO,
    s_kp, s_ks, s_kh, s_vp, s_vs, s_vh, s_bt, s_ot, s_oh, D,
    PAGE: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
):
    b = tl.program_id(0)
    tb = tl.program_id(1)
    h = tl.program_id(2)
    n = tl.load(Lens + b)
    if tb * BLOCK_T >= n:
        return
    start = tl.load(Cu + b)
    t = tb * BLOCK_T + tl.arange(0, BLOCK_T)
    ok = t < n
    page = tl.load(BT + b * s_bt + t // PAGE, mask=ok, other=0).to(tl.int64)
    slot = t % PAGE
    d = tl.arange(0, BLOCK_D)
    m = ok[:, None] & (d[None, :] < D)
    src_k = page[:, None] * s_kp + slot[:, None] * s_ks + h * s_kh + d[None, :]
    src_v = page[:, None] * s_vp + slot[:, None] * s_vs + h * s_vh + d[None, :]
    dst = (start + t)[:, None].to(tl.int64) * s_ot + h * s_oh + d[None, :]
    tl.store(KO + dst, tl.load(KC + src_k, mask=m), mask=m)
    tl.store(VO + dst, tl.load(VC + src_v, mask=m), mask=m)


def run(k_cache, v_cache, block_table, seq_lens):
    _, page_size, heads, D = k_cache.shape
    cu = torch.zeros(seq_lens.numel() + 1, dtype=torch.int32, device=seq_lens.device)
    cu[1:] = torch.cumsum(seq_lens, 0)
    total = int(cu[-1])
    max_len = int(seq_lens.max())
    k_out = torch.empty((total, heads, D), dtype=k_cache.dtype, device=k_cache.device)
    v_out = torch.empty_like(k_out)
    BLOCK_T = 32
    grid = (seq_lens.numel(), triton.cdiv(max_len, BLOCK_T), heads)
    _gather_kv[grid](
        k_cache, v_cache, block_table, seq_lens, cu, k_out, v_out,
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_table.stride(0), k_out.stride(0), k_out.stride(1), D,
        PAGE=page_size, BLOCK_T=BLOCK_T, BLOCK_D=triton.next_power_of_2(D), num_warps=4,
    )
    return k_out, v_out
