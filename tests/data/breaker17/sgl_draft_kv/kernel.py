"""SGLang's EAGLE draft-decode page indices (python/sglang/srt/speculative/eagle_utils.py,
``generate_draft_decode_kv_indices``): ``@triton.jit(do_not_specialize_on_alignment=["num_seqs",
"kv_indices_stride"])``; the copy's block ``BLOCK_SIZE: tl.constexpr = 128`` bound in the kernel's body (a loop's
step); a 3-axis grid ``(num_steps, num_seqs, topk)``; three ``tl.arange`` widths the host rounds up
(``max_bs``, ``iter_upper``, ``max_num_tokens``: ``next_power_of_2``) masked by the true counts and summed by
``tl.sum``; each step's row of ``kv_indices`` and ``kv_indptr`` written at an offset the kernel computes from the
lengths before it (the buffers preallocated and zeroed by the caller)."""

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize_on_alignment=["num_seqs", "kv_indices_stride"])
def generate_draft_decode_kv_indices(
    req_pool_indices,
    req_to_token,
    paged_kernel_lens,
    kv_indices,
    kv_indptr,
    positions,
    num_seqs: int,
    kv_indices_stride: int,
    topk: tl.constexpr,
    pool_len: tl.constexpr,
    kv_indptr_stride: tl.constexpr,
    max_bs: tl.constexpr,
    iter_upper: tl.constexpr,
    max_num_tokens: tl.constexpr,
):
    BLOCK_SIZE: tl.constexpr = 128
    iters = tl.program_id(axis=0)  # which draft step
    bid = tl.program_id(axis=1)  # which sequence
    topk_id = tl.program_id(axis=2)  # which of its topk branches

    kv_indices += kv_indices_stride * iters
    kv_indptr += kv_indptr_stride * iters
    iters += 1

    load_offset = tl.arange(0, max_bs)
    seq_lens = tl.load(paged_kernel_lens + load_offset, mask=load_offset < bid)
    seq_len = tl.load(paged_kernel_lens + bid)
    cum_seq_len = tl.sum(seq_lens)

    kv_offset = cum_seq_len * topk + bid * iters * topk + topk_id * (seq_len + iters)
    kv_ptr = kv_indices + kv_offset
    token_pool_ptr = req_to_token + tl.load(req_pool_indices + bid) * pool_len

    kv_offset = tl.arange(0, BLOCK_SIZE)
    num_loop = tl.cdiv(seq_len, BLOCK_SIZE)
    for _ in range(num_loop):
        mask = kv_offset < seq_len
        data = tl.load(token_pool_ptr + kv_offset, mask=mask)
        tl.store(kv_ptr + kv_offset, data, mask=mask)
        kv_offset += BLOCK_SIZE

    extend_offset = tl.arange(0, iter_upper)
    extend_data = tl.load(
        token_pool_ptr + seq_len + tl.arange(0, iter_upper) * topk + topk_id,
        mask=extend_offset < iters,
    )
    tl.store(kv_ptr + seq_len + extend_offset, extend_data, mask=extend_offset < iters)

    # the step's row of kv_indptr
    bs_offset = tl.arange(0, max_num_tokens)
    zid = bid * topk + topk_id
    if zid == 0:
        zid = num_seqs * topk
    positions = tl.load(positions + bs_offset, mask=bs_offset < zid)
    base = tl.sum(positions)
    tl.store(kv_indptr + zid, base + zid * iters)


def run(req_pool_indices, req_to_token, seq_lens, positions, meta):
    num_steps, topk = int(meta[0]), int(meta[1])
    num_seqs = seq_lens.numel()
    bs = num_seqs * topk
    max_ctx = req_to_token.shape[1]
    kv_indices = torch.zeros((num_steps, bs * max_ctx), dtype=torch.int32, device=seq_lens.device)
    kv_indptr = torch.zeros((num_steps, bs + 1), dtype=torch.int32, device=seq_lens.device)
    generate_draft_decode_kv_indices[(num_steps, num_seqs, topk)](
        req_pool_indices,
        req_to_token,
        seq_lens,
        kv_indices,
        kv_indptr,
        positions,
        num_seqs,
        kv_indices.shape[1],
        topk,
        req_to_token.shape[1],
        kv_indptr.shape[1],
        triton.next_power_of_2(num_seqs),
        triton.next_power_of_2(num_steps),
        triton.next_power_of_2(bs),
    )
    return kv_indices, kv_indptr
