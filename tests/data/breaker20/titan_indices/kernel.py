"""torchtitan's MoE permutation indices (``torchtitan/experiments/kernels/moe/indices.py``, BSD-3-Clause):
``generate_permute_indices`` (two prefix sums in torch, each expert's rows padded to ``alignment``) and
``_fill_indices_kernel``, whose programs stride over the local experts (``for expert_id in range(pid,
experts_per_rank, num_programs)``), then over the ranks, then over each (expert, rank) run of tokens in
``BLOCK_SIZE`` chunks (a loop bound LOADED from memory); the block a keyword default of the wrapper
(``block_size: int = 128``) passed as ``BLOCK_SIZE=block_size``, the grid ``(min(experts_per_rank, max_blocks),)``
with ``max_blocks: int = 1024`` another default; ``experts_per_rank`` / ``num_ranks`` constexprs; the output
pre-filled with -1 (the padding slots)."""

import torch
import triton
import triton.language as tl


__all__ = ["generate_permute_indices"]


# parallelized kernel
@triton.jit
def _fill_indices_kernel(
    tokens_per_expert_group_ptr,
    start_index_values_ptr,
    write_offsets_ptr,
    output_ptr,
    experts_per_rank: tl.constexpr,
    num_ranks: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,  # Number of threads per block
):
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)

    # programs take the experts in turn (a grid stride when there are fewer programs than experts)
    for expert_id in range(pid, experts_per_rank, num_programs):
        # where this expert's rows start
        write_offset = tl.load(write_offsets_ptr + expert_id)

        for r in range(num_ranks):
            # the (rank, expert) entry of tokens_per_expert_group
            i = r * experts_per_rank + expert_id

            # first token and token count of this (expert, rank) pair
            start_index = tl.load(start_index_values_ptr + i)
            length = tl.load(tokens_per_expert_group_ptr + i)

            # the lanes of one chunk
            offsets = tl.arange(0, BLOCK_SIZE)

            # the run in chunks of BLOCK_SIZE tokens
            for chunk_start in range(0, length, BLOCK_SIZE):
                chunk_offsets = chunk_start + offsets

                # only the run's own tokens
                mask = chunk_offsets < length

                values = start_index + chunk_offsets

                # where they go
                dest_indices = write_offset + chunk_offsets

                # store
                tl.store(output_ptr + dest_indices, values, mask=mask)

            # the next rank's tokens follow
            write_offset += length


# ==============
# wrapper
# ==============


def fill_indices_wrapper(
    tokens_per_expert_group: torch.Tensor,
    start_index_values: torch.Tensor,
    write_offsets: torch.Tensor,
    experts_per_rank: int,
    num_ranks: int,
    max_len: int,
    block_size: int = 128,
    max_blocks: int = 1024,  # at most this many programs
):
    # the output, every slot -1 until written
    permuted_indices = torch.full(
        (max_len,), -1, dtype=torch.int32, device=tokens_per_expert_group.device
    )

    # one program an expert, capped (then the programs loop)
    num_blocks = min(experts_per_rank, max_blocks)
    grid = (num_blocks,)

    # launch kernel
    _fill_indices_kernel[grid](
        tokens_per_expert_group,
        start_index_values,
        write_offsets,
        permuted_indices,
        experts_per_rank,
        num_ranks,
        BLOCK_SIZE=block_size,
    )
    return permuted_indices


def generate_permute_indices(
    tokens_per_expert_group: torch.Tensor,
    experts_per_rank: int,
    num_ranks: int,
    max_len: int,
    alignment: int,
):
    """The permutation indices and each expert's padded row count.

    tokens_per_expert_group: tokens of each expert from every rank, (num_ranks * experts_per_rank,), rank-major.
    Returns permuted_indices (token order to expert-grouped order, -1 in padding), m_sizes (each expert's count
    padded to ``alignment``, at least ``alignment``) and m_offsets (their running sum, each expert's end)."""

    # each (rank, expert) run's first token
    start_index_values = (
        torch.cumsum(tokens_per_expert_group, 0) - tokens_per_expert_group
    )

    # each expert's tokens over the ranks
    total_tokens_per_expert = tokens_per_expert_group.view(num_ranks, -1).sum(0)

    # an expert without tokens still gets `alignment` rows
    total_tokens_per_expert = torch.clamp_min(total_tokens_per_expert, alignment)

    # rounded up to the alignment
    m_sizes = ((total_tokens_per_expert + alignment - 1) // alignment * alignment).to(
        torch.int32
    )

    # where each local expert's rows start in permuted_indices
    m_offsets = torch.cumsum(m_sizes, 0)
    write_offsets = m_offsets - m_sizes

    permuted_indices = fill_indices_wrapper(
        tokens_per_expert_group,
        start_index_values,
        write_offsets,
        experts_per_rank,
        num_ranks,
        max_len,
    )

    return permuted_indices, m_sizes, m_offsets.to(torch.int32)


def run(tokens_per_expert_group):
    # (num_ranks, experts_per_rank) counts, flattened rank-major as torchtitan's all-to-all gives them
    num_ranks, experts_per_rank = tokens_per_expert_group.shape
    alignment = 16
    max_len = int(tokens_per_expert_group.sum()) + experts_per_rank * alignment
    return generate_permute_indices(
        tokens_per_expert_group.reshape(-1), experts_per_rank, num_ranks, max_len, alignment
    )
