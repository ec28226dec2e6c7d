"""tritonbench's jagged sum (``tritonbench/operators/jagged_sum/kernels.py`` and ``operator.py``, BSD-3-Clause): a
nested (jagged) tensor of shape (B, *, M) summed over its ragged dimension, by
``triton_jagged_sum_kernel_simple_fused_buffer_then_sum`` launched as ``execute_kernel_simple_fused`` launches it:
``@triton.autotune`` over a comprehension of ``itertools.product(BLOCK_SIZES, BLOCK_SIZES, NUM_WARPS,
NUM_STAGES)`` (module-level lists, ``BLOCK_SIZES = [2**n for n in range(3, 7, 3)]``: 8 and 64) keyed on ``["M"]``;
the grid ``lambda meta: ((len(x.offsets()) - 1) * triton.cdiv(M, meta["BLOCK_SIZE_M"]),)``, a program a (sequence,
column block) split back by ``//`` / ``%``; every sequence walked up to the batch's ``MAX_SEQLEN`` (a runtime
argument) in ``BLOCK_SIZE_RAGGED`` steps, masked by its own end; the output ``torch.zeros``. The operator's
nested tensor built from the values and offsets in ``run``. The profiling-memory argument of later versions is
left out (this version's kernels take none)."""

import itertools

import torch
import triton
import triton.language as tl


BLOCK_SIZES = [2**n for n in range(3, 7, 3)]
NUM_WARPS = [4]  # [4, 8] in tritonbench: cut for the interpreter
NUM_STAGES = [2]  # [2, 4] in tritonbench: cut for the interpreter


@triton.autotune(
    configs=[
        triton.Config(
            {
                "BLOCK_SIZE_RAGGED": b_r,
                "BLOCK_SIZE_M": b_m,
            },
            num_warps=w,
            num_stages=s,
        )
        for b_r, b_m, w, s in itertools.product(
            BLOCK_SIZES,  # block sizes on non-reduction dimension
            BLOCK_SIZES,  # block sizes on reduction dimension
            NUM_WARPS,  # number of warps
            NUM_STAGES,  # number of stages
        )
    ],
    key=["M"],
)
@triton.jit
def triton_jagged_sum_kernel_simple_fused_buffer_then_sum(
    input_ptr_values,  # the values (2-D: all sequences' rows, M columns)
    input_ptr_offsets,  # the offsets (1-D: each sequence's first row, then the end)
    output_ptr,  # the output (2-D: B rows of M)
    # sizes
    M,  # columns of every row, the dense last dimension of (B, *, M)
    MAX_SEQLEN,  # the longest sequence
    # blocks
    BLOCK_SIZE_RAGGED: tl.constexpr,  # rows of the ragged dimension a step
    BLOCK_SIZE_M: tl.constexpr,  # columns a program
):
    pid = tl.program_id(axis=0)  # a (sequence, column block) pair
    pid_ragged = pid // tl.cdiv(M, BLOCK_SIZE_M)
    pid_m = pid % tl.cdiv(M, BLOCK_SIZE_M)

    buffer = tl.zeros(
        (BLOCK_SIZE_RAGGED, BLOCK_SIZE_M), dtype=tl.float32
    )  # the partial sums, one tile

    block_start_m = pid_m * BLOCK_SIZE_M
    offsets_m = block_start_m + tl.arange(0, BLOCK_SIZE_M)
    mask_m = offsets_m < M

    ragged_start, ragged_end = (
        tl.load(input_ptr_offsets + pid_ragged),
        tl.load(input_ptr_offsets + (pid_ragged + 1)),
    )  # this sequence's first row and its end

    for block_pos in range(
        0, MAX_SEQLEN, BLOCK_SIZE_RAGGED
    ):  # up to the longest sequence, whatever this one's length
        block_start_ragged = (
            ragged_start + block_pos
        )  # rows counted from this sequence's start
        offsets_ragged = block_start_ragged + tl.arange(0, BLOCK_SIZE_RAGGED)
        mask_ragged = offsets_ragged < ragged_end

        idxs = (offsets_ragged[:, None] * M) + offsets_m
        mask = mask_ragged[:, None] & mask_m

        buffer += tl.load(input_ptr_values + idxs, mask=mask, other=0)

    buffer_sum = tl.sum(buffer, axis=0)

    buffer_view = buffer_sum.reshape(
        (BLOCK_SIZE_M,),
    )  # one row

    output_offsets = offsets_m + (
        pid_ragged * M
    )  # this sequence's output row
    output_mask = output_offsets < (M * (pid_ragged + 1))

    tl.store(output_ptr + output_offsets, buffer_view, mask=output_mask)


def execute_kernel_simple_fused(x, max_seqlen):
    B, M = x.shape[0], x.shape[2]
    grid = lambda meta: ((len(x.offsets()) - 1) * triton.cdiv(M, meta["BLOCK_SIZE_M"]),)
    kernel_output = torch.zeros((B, M), device=x.device)

    triton_jagged_sum_kernel_simple_fused_buffer_then_sum[grid](
        x.values(),
        x.offsets(),
        kernel_output,
        M=M,
        MAX_SEQLEN=max_seqlen,
    )

    return kernel_output


def run(values, offsets):
    x = torch.nested.nested_tensor_from_jagged(values, offsets)
    max_seqlen = int((offsets[1:] - offsets[:-1]).max())
    return execute_kernel_simple_fused(x, max_seqlen)
