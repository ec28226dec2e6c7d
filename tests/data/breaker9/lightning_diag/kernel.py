"""vLLM's lightning attention, its first step (``vllm/model_executor/layers/lightning_attn.py``,
``_fwd_diag_kernel``): decayed causal attention within each diagonal block of ``BLOCK`` positions,
``o_i = sum_{j <= i, same block} exp(-s_h (i - j)) (q_i . k_j) v_j``. One program a (batch-head, block, sub-block of
``CBLOCK`` queries), walking the block's sub-blocks up to its own. The host follows vLLM: ``BLOCK = 64``,
``NUM_BLOCK = triton.cdiv(n, BLOCK)``, ``CBLOCK = 32``, ``NUM_CBLOCK = BLOCK // CBLOCK`` with
``assert BLOCK % CBLOCK == 0``, grid ``(b * h * NUM_BLOCK, NUM_CBLOCK)``. ``BLOCK`` is the operator's block (the
later steps carry the state between blocks; the reference sums within blocks of the same 64); ``CBLOCK`` is free."""

import torch
import triton
import triton.language as tl


@triton.jit
def _fwd_diag_kernel(Q, K, V, Out, S, b: tl.constexpr, h: tl.constexpr, n,
                     d: tl.constexpr, e: tl.constexpr, BLOCK: tl.constexpr,
                     NUM_BLOCK, CBLOCK: tl.constexpr):
    off = tl.program_id(0)
    off_bh = off // NUM_BLOCK
    off_block = off % NUM_BLOCK
    off_cblock = tl.program_id(1)

    off_h = off_bh % h

    qk_offset = off_bh * n * d
    v_offset = off_bh * n * e
    o_offset = off_bh * n * e

    block_offset = off_block * BLOCK
    qk_block_offset = block_offset * d
    v_block_offset = block_offset * e
    o_block_offset = block_offset * e

    cblock_offset = off_cblock * CBLOCK
    q_cblock_offset = cblock_offset * d
    o_cblock_offset = cblock_offset * e

    Q_block_ptr = (Q + qk_offset + qk_block_offset + q_cblock_offset + tl.arange(0, CBLOCK)[:, None] * d
                   + tl.arange(0, d)[None, :])
    K_trans_block_ptr = (K + qk_offset + qk_block_offset + tl.arange(0, CBLOCK)[None, :] * d
                         + tl.arange(0, d)[:, None])
    V_block_ptr = (V + v_offset + v_block_offset + tl.arange(0, CBLOCK)[:, None] * e + tl.arange(0, e)[None, :])
    O_block_ptr = (Out + o_offset + o_block_offset + o_cblock_offset + tl.arange(0, CBLOCK)[:, None] * e
                   + tl.arange(0, e)[None, :])

    S_block_ptr = S + off_h
    s = tl.load(S_block_ptr)

    i = off_cblock
    q_index = tl.arange(0, CBLOCK) + i * CBLOCK

    q = tl.load(Q_block_ptr, mask=block_offset + q_index[:, None] < n, other=0.0).to(tl.float32)

    qkv = tl.zeros([CBLOCK, e], dtype=tl.float32)

    for j in range(i + 1):
        kv_index = tl.arange(0, CBLOCK) + j * CBLOCK
        diff = q_index[:, None] - kv_index[None, :]
        s_index = s * diff
        s_index = tl.where(diff >= 0, -s_index, float("-inf"))
        decay = tl.exp(s_index)

        k_trans = tl.load(K_trans_block_ptr, mask=block_offset + kv_index[None, :] < n, other=0.0).to(tl.float32)
        v = tl.load(V_block_ptr, mask=block_offset + kv_index[:, None] < n, other=0.0).to(tl.float32)

        qk = tl.dot(q, k_trans) * decay
        qkv += tl.dot(qk, v)

        K_trans_block_ptr += CBLOCK * d
        V_block_ptr += CBLOCK * e

    tl.store(O_block_ptr, qkv.to(O_block_ptr.dtype.element_ty), mask=block_offset + q_index[:, None] < n)


def run(q, k, v, s):
    q = q.contiguous()
    k = k.contiguous()
    v = v.contiguous()
    s = s.contiguous()
    b, h, n, d = q.shape
    e = v.shape[-1]
    o = torch.empty((b, h, n, e), dtype=q.dtype, device=q.device)

    BLOCK = 64
    NUM_BLOCK = triton.cdiv(n, BLOCK)

    CBLOCK = 32
    NUM_CBLOCK = BLOCK // CBLOCK
    assert BLOCK % CBLOCK == 0, "BLOCK must be a multiple of CBLOCK"

    grid = (b * h * NUM_BLOCK, NUM_CBLOCK)
    _fwd_diag_kernel[grid](q, k, v, o, s, b, h, n, d, e, BLOCK=BLOCK, NUM_BLOCK=NUM_BLOCK, CBLOCK=CBLOCK)
    return o
