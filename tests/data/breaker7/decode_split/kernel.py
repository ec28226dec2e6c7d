"""Decode attention over a paged KV cache, split along the sequence as SGLang's triton decode backend writes it:
stage 1 runs (batch, head, NUM_KV_SPLITS) programs, each walking its share of the request's tokens in BLOCK_N steps
through kv_indptr / kv_indices (page size 1) and writing a partial output and its log-sum-exp; stage 2 merges the
splits. NUM_KV_SPLITS is a server setting; BLOCK_N a module constant; num_warps by the query-group size."""

import torch
import triton
import triton.language as tl

NUM_KV_SPLITS = 4
BLOCK = 32


@triton.jit
def _fwd_kernel_stage1(Q, K_Buffer, V_Buffer, sm_scale, kv_indptr, kv_indices, Att_Out, Att_Lse,
                       stride_qbs, stride_qh, stride_buf_kbs, stride_buf_kh, stride_buf_vbs, stride_buf_vh,
                       stride_mid_ob, stride_mid_oh, stride_mid_os, kv_group_num: tl.constexpr,
                       BLOCK_DMODEL: tl.constexpr, BLOCK_DV: tl.constexpr, BLOCK_N: tl.constexpr,
                       NUM_KV_SPLITS: tl.constexpr, Lk: tl.constexpr, Lv: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    split_kv_id = tl.program_id(2)
    cur_kv_head = cur_head // kv_group_num
    offs_d = tl.arange(0, BLOCK_DMODEL)
    offs_dv = tl.arange(0, BLOCK_DV)
    mask_d = offs_d < Lk
    mask_dv = offs_dv < Lv
    cur_batch_kv_start_idx = tl.load(kv_indptr + cur_batch)
    cur_batch_seq_len = tl.load(kv_indptr + cur_batch + 1) - cur_batch_kv_start_idx
    q = tl.load(Q + cur_batch * stride_qbs + cur_head * stride_qh + offs_d, mask=mask_d, other=0.0)
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
    e_max = -float("inf")
    e_sum = 0.0
    acc = tl.zeros([BLOCK_DV], dtype=tl.float32)
    if split_kv_end > split_kv_start:
        for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
            offs_n = start_n + tl.arange(0, BLOCK_N)
            kv_loc = tl.load(kv_indices + cur_batch_kv_start_idx + offs_n, mask=offs_n < split_kv_end, other=0)
            offs_buf_k = kv_loc[:, None] * stride_buf_kbs + cur_kv_head * stride_buf_kh + offs_d[None, :]
            k = tl.load(K_Buffer + offs_buf_k, mask=(offs_n[:, None] < split_kv_end) & mask_d[None, :], other=0.0)
            qk = tl.sum(q[None, :] * k, 1) * sm_scale
            qk = tl.where(offs_n < split_kv_end, qk, float("-inf"))
            offs_buf_v = kv_loc[:, None] * stride_buf_vbs + cur_kv_head * stride_buf_vh + offs_dv[None, :]
            v = tl.load(V_Buffer + offs_buf_v, mask=(offs_n[:, None] < split_kv_end) & mask_dv[None, :], other=0.0)
            n_e_max = tl.maximum(tl.max(qk, 0), e_max)
            re_scale = tl.exp(e_max - n_e_max)
            p = tl.exp(qk - n_e_max)
            acc *= re_scale
            acc += tl.sum(p[:, None] * v, 0)
            e_sum = e_sum * re_scale + tl.sum(p, 0)
            e_max = n_e_max
        offs_mid_o = cur_batch * stride_mid_ob + cur_head * stride_mid_oh + split_kv_id * stride_mid_os + offs_dv
        tl.store(Att_Out + offs_mid_o, acc / e_sum, mask=mask_dv)
        offs_mid_lse = (cur_batch * stride_mid_ob + cur_head * stride_mid_oh + split_kv_id * stride_mid_os) // Lv
        tl.store(Att_Lse + offs_mid_lse, e_max + tl.log(e_sum))


@triton.jit
def _fwd_kernel_stage2(Mid_O, Mid_O_1, O, kv_indptr, stride_mid_ob, stride_mid_oh, stride_mid_os, stride_obs,
                       stride_oh, NUM_KV_SPLITS: tl.constexpr, BLOCK_DV: tl.constexpr, Lv: tl.constexpr):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)
    cur_batch_seq_len = tl.load(kv_indptr + cur_batch + 1) - tl.load(kv_indptr + cur_batch)
    offs_d = tl.arange(0, BLOCK_DV)
    mask_d = offs_d < Lv
    e_sum = 0.0
    e_max = -float("inf")
    acc = tl.zeros([BLOCK_DV], dtype=tl.float32)
    offs_v = cur_batch * stride_mid_ob + cur_head * stride_mid_oh + offs_d
    offs_logic = (cur_batch * stride_mid_ob + cur_head * stride_mid_oh) // Lv
    kv_len_per_split = tl.cdiv(cur_batch_seq_len, NUM_KV_SPLITS)
    for split_kv_id in range(0, NUM_KV_SPLITS):
        split_kv_start = kv_len_per_split * split_kv_id
        split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, cur_batch_seq_len)
        if split_kv_end > split_kv_start:
            tv = tl.load(Mid_O + offs_v + split_kv_id * stride_mid_os, mask=mask_d, other=0.0)
            tlogic = tl.load(Mid_O_1 + offs_logic + split_kv_id * stride_mid_os // Lv)
            n_e_max = tl.maximum(tlogic, e_max)
            old_scale = tl.exp(e_max - n_e_max)
            acc *= old_scale
            exp_logic = tl.exp(tlogic - n_e_max)
            acc += exp_logic * tv
            e_sum = e_sum * old_scale + exp_logic
            e_max = n_e_max
    tl.store(O + cur_batch * stride_obs + cur_head * stride_oh + offs_d, acc / e_sum, mask=mask_d)


def decode_attention_fwd(q, k_buffer, v_buffer, o, kv_indptr, kv_indices, attn_logits, attn_lse, num_kv_splits,
                         sm_scale):
    Lk = k_buffer.shape[-1]
    Lv = v_buffer.shape[-1]
    batch, head_num = q.shape[0], q.shape[1]
    kv_group_num = q.shape[1] // k_buffer.shape[1]
    BLOCK_DMODEL = triton.next_power_of_2(Lk)
    BLOCK_DV = triton.next_power_of_2(Lv)
    grid = (batch, head_num, num_kv_splits)
    num_warps = 4 if kv_group_num == 1 else 2
    _fwd_kernel_stage1[grid](
        q, k_buffer, v_buffer, sm_scale, kv_indptr, kv_indices, attn_logits, attn_lse,
        q.stride(0), q.stride(1), k_buffer.stride(0), k_buffer.stride(1), v_buffer.stride(0), v_buffer.stride(1),
        attn_logits.stride(0), attn_logits.stride(1), attn_logits.stride(2),
        kv_group_num=kv_group_num, BLOCK_DMODEL=BLOCK_DMODEL, BLOCK_DV=BLOCK_DV, BLOCK_N=BLOCK,
        NUM_KV_SPLITS=num_kv_splits, num_warps=num_warps, num_stages=2, Lk=Lk, Lv=Lv,
    )
    _fwd_kernel_stage2[(batch, head_num)](
        attn_logits, attn_lse, o, kv_indptr, attn_logits.stride(0), attn_logits.stride(1), attn_logits.stride(2),
        o.stride(0), o.stride(1), NUM_KV_SPLITS=num_kv_splits, BLOCK_DV=BLOCK_DV, Lv=Lv, num_warps=4,
        num_stages=2,
    )


def run(q, k_buffer, v_buffer, kv_indptr, kv_indices):
    """q: (B, H, D) one decode token a request; k_buffer / v_buffer: (tokens, H_kv, D) the cache; kv_indptr (B + 1,)
    int32 and kv_indices int32 the request's cache slots."""
    batch, head_num, Lv = q.shape[0], q.shape[1], v_buffer.shape[-1]
    o = torch.empty_like(q)
    attn_logits = torch.empty((batch, head_num, NUM_KV_SPLITS, Lv), dtype=torch.float32, device=q.device)
    attn_lse = torch.empty((batch, head_num, NUM_KV_SPLITS), dtype=torch.float32, device=q.device)
    decode_attention_fwd(q, k_buffer, v_buffer, o, kv_indptr, kv_indices, attn_logits, attn_lse, NUM_KV_SPLITS,
                         q.shape[-1] ** -0.5)
    return o
