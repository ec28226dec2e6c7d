"""Attention forward (a causal flag, off here), one (batch*head) and BLOCK_M queries a program, keys in steps of
BLOCK_N with an online softmax. Queries are masked; keys are not: the sequence is a multiple of the key block."""

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq, sm_scale, HEAD: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * seq * HEAD
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD)
    qmask = offs_m[:, None] < seq
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD + offs_d[None, :], mask=qmask, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    hi = seq
    if CAUSAL:
        hi = tl.minimum((pid_m + 1) * BLOCK_M, seq)
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD + offs_d[None, :])
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD + offs_d[None, :])
        s = tl.dot(q, tl.trans(k)) * sm_scale
        if CAUSAL:
            s = tl.where(offs_m[:, None] >= offs_n[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    tl.store(o_ptr + base + offs_m[:, None] * HEAD + offs_d[None, :], acc / l_i[:, None], mask=qmask)


def run(q, k, v):
    BH, seq, head = q.shape
    o = torch.empty_like(q)
    BLOCK_M, BLOCK_N = 32, 16
    grid = (triton.cdiv(seq, BLOCK_M), BH)
    _attn_fwd[grid](q, k, v, o, seq, head**-0.5, HEAD=head, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=False,
                    num_warps=4, num_stages=2)
    return o
