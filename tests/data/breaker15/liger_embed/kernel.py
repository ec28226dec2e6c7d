"""Liger-Kernel's embedding forward (liger_kernel/ops/experimental/embedding.py): a gather of rows by index into a
(tokens, dim) output, a 2-D grid of ``BLOCK_SIZE_M`` tokens x ``BLOCK_SIZE_N`` columns; the settings a 3-TUPLE from
a helper's ``if`` chain on the embedding's width (``_fwd_config(n_elements, embedding_dim)``: ``128, next_pow2(min(128,
d)), 4`` below 256, ``64, 512, 4`` below 1024, else ``128, 512, 8``), unpacked ``BLOCK_SIZE_M, BLOCK_SIZE_N, num_warps
= ...``; ``embedding_dim: tl.constexpr`` (the width a constexpr), every setting by keyword; indices flattened, the
output viewed back to ``(*indices.shape, dim)``."""

import torch
import triton
import triton.language as tl


def _next_pow2(x):
    return triton.next_power_of_2(x)


def _fwd_config(n_elements, embedding_dim):
    """Wide column tiles with 8 warps for wide tables, a 64 x 512 tile for mid widths, 128 x 128 for small ones."""
    d = embedding_dim
    if d < 256:
        tile_n = _next_pow2(min(128, d))
        return 128, tile_n, 4
    if d < 1024:
        return 64, 512, 4
    return 128, 512, 8


@triton.jit
def embedding_forward_kernel(
    embeddings_ptr,
    indices_ptr,
    output_ptr,
    n_elements,
    embedding_dim: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    start_m = pid_m * BLOCK_SIZE_M
    start_n = pid_n * BLOCK_SIZE_N
    offsets_m = start_m + tl.arange(0, BLOCK_SIZE_M)
    mask_m = offsets_m < n_elements
    indices = tl.load(indices_ptr + offsets_m, mask=mask_m, other=0, eviction_policy="evict_first")
    offsets_n = start_n + tl.arange(0, BLOCK_SIZE_N)
    mask_n = offsets_n < embedding_dim

    embedding_offsets = indices[:, None] * embedding_dim + offsets_n[None, :]
    embeddings = tl.load(
        embeddings_ptr + embedding_offsets,
        mask=mask_m[:, None] & mask_n[None, :],
        other=0.0,
        eviction_policy="evict_last",
    )

    output_offsets = offsets_m[:, None] * embedding_dim + offsets_n[None, :]
    tl.store(
        output_ptr + output_offsets, embeddings, mask=mask_m[:, None] & mask_n[None, :], eviction_policy="evict_first"
    )


def embedding_forward(embeddings: torch.Tensor, indices: torch.Tensor):
    ori_shape = indices.shape
    indices = indices.view(-1)
    output = torch.empty(indices.shape[0], embeddings.shape[1], device=indices.device, dtype=embeddings.dtype)

    n_elements = indices.numel()
    embedding_dim = embeddings.shape[1]

    BLOCK_SIZE_M, BLOCK_SIZE_N, num_warps = _fwd_config(n_elements, embedding_dim)
    grid = (
        triton.cdiv(n_elements, BLOCK_SIZE_M),
        triton.cdiv(embedding_dim, BLOCK_SIZE_N),
    )

    embedding_forward_kernel[grid](
        embeddings,
        indices,
        output,
        n_elements,
        embedding_dim=embedding_dim,
        BLOCK_SIZE_M=BLOCK_SIZE_M,
        BLOCK_SIZE_N=BLOCK_SIZE_N,
        num_warps=num_warps,
    )
    return output.view(*ori_shape, -1)


def run(embeddings, indices):
    return embedding_forward(embeddings.contiguous(), indices.contiguous())
