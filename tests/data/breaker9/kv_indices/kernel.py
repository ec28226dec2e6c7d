"""SGLang's ``create_flashinfer_kv_indices_triton``: each request of a decode batch copies its row of the
``req_to_token`` table (the KV-cache slots of its tokens) into one flat ``kv_indices`` array at ``kv_indptr[i]``.
One program a request, walking its ``kv_len`` tokens in ``BLOCK_SIZE`` steps; ``BLOCK_SIZE: tl.constexpr = 512`` is
a local of the kernel body, as SGLang writes it, never passed at the launch; ``kv_start_idx`` is ``None`` (no sliding
window), so the ``if kv_start_idx:`` branch is compiled out."""

import torch
import triton
import triton.language as tl


@triton.jit
def create_flashinfer_kv_indices_triton(
    req_to_token_ptr,  # [max_batch, max_context_len]
    req_pool_indices_ptr,
    page_kernel_lens_ptr,
    kv_indptr,
    kv_start_idx,
    kv_indices_ptr,
    req_to_token_ptr_stride: tl.constexpr,
):
    BLOCK_SIZE: tl.constexpr = 512
    pid = tl.program_id(axis=0)

    req_pool_index = tl.load(req_pool_indices_ptr + pid)
    kv_indices_offset = tl.load(kv_indptr + pid)

    kv_start = 0
    kv_end = 0
    if kv_start_idx:
        kv_start = tl.load(kv_start_idx + pid).to(tl.int32)
        kv_end = kv_start
    kv_end += tl.load(page_kernel_lens_ptr + pid).to(tl.int32)

    num_loop = tl.cdiv(kv_end - kv_start, BLOCK_SIZE)
    for i in range(num_loop):
        offset = tl.arange(0, BLOCK_SIZE).to(tl.int64) + i * BLOCK_SIZE
        mask = offset < kv_end - kv_start
        data = tl.load(
            req_to_token_ptr + req_pool_index * req_to_token_ptr_stride + kv_start + offset,
            mask=mask,
        )
        tl.store(kv_indices_ptr + kv_indices_offset + offset, data, mask=mask)


def run(req_to_token, req_pool_indices, seq_lens):
    bs = req_pool_indices.shape[0]
    kv_indptr = torch.zeros((bs + 1,), dtype=torch.int32, device=req_to_token.device)
    kv_indptr[1:] = torch.cumsum(seq_lens, dim=0)
    kv_indices = torch.empty(int(kv_indptr[-1].item()), dtype=torch.int32, device=req_to_token.device)
    create_flashinfer_kv_indices_triton[(bs,)](
        req_to_token,
        req_pool_indices,
        seq_lens,
        kv_indptr,
        None,
        kv_indices,
        req_to_token.shape[1],
    )
    return kv_indices
