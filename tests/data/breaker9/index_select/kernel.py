"""xformers' ``index_select_cat`` forward (``xformers/ops/_triton/k_index_select_cat.py``): rows of ``source`` gathered
by ``index`` into a dense output, a 2-D grid of ``BLOCK_SIZE_INDEX`` indices x ``BLOCK_SIZE_COL`` columns, a named
``def grid(meta)`` reading both; the launch passes ``BLOCK_SIZE_INDEX=1, BLOCK_SIZE_COL=512`` (one index a program).
The output is written with the source's strides, as xformers does (both have ``num_cols`` columns)."""

import torch
import triton
import triton.language as tl


@triton.jit
def index_select_cat_fwd_kernel(
    output_ptr,  # *Pointer* to output tensor.
    source_ptr,  # *Pointer* to source tensor.
    index_ptr,  # *Pointer* to index tensor.
    num_indices,
    num_cols,
    stride0,  # Stride information of source tensor.
    stride1,
    BLOCK_SIZE_INDEX: tl.constexpr,  # Number of indices each program should process.
    BLOCK_SIZE_COL: tl.constexpr,  # Number of cols each program should process.
):
    pid0 = tl.program_id(axis=0)  # block id along the index axis
    pid1 = tl.program_id(axis=1)  # block id along the column axis

    indices = pid0 * BLOCK_SIZE_INDEX + tl.arange(0, BLOCK_SIZE_INDEX)
    rows = tl.load(index_ptr + indices, mask=(indices < num_indices))
    cols = pid1 * BLOCK_SIZE_COL + tl.arange(0, BLOCK_SIZE_COL)

    source_offsets = source_ptr + rows[:, None] * stride0 + cols[None, :] * stride1
    mask = (indices[:, None] < num_indices) & (cols[None, :] < num_cols)
    output = tl.load(source_offsets, mask=mask)

    output_offsets = output_ptr + indices[:, None] * stride0 + cols[None, :] * stride1
    tl.store(output_offsets, output, mask=mask)


def run(source, index):
    if not source.ndim == 2:
        raise ValueError(f"Expected 2-dimensional tensor, got {source.ndim}.")
    if not index.ndim == 1:
        raise ValueError(f"Expected 1-dimensional tensor, got {index.ndim}.")

    num_rows, num_cols = source.shape
    num_indices = index.shape[0]

    if not num_indices < num_rows:
        raise ValueError("The number of indices cannot exceed the number of rows in the source matrix.")

    stride0, stride1 = source.stride(0), source.stride(1)
    output = torch.empty((num_indices, num_cols), dtype=source.dtype, device=source.device)

    def grid(meta):
        return (
            triton.cdiv(num_indices, meta["BLOCK_SIZE_INDEX"]),
            triton.cdiv(num_cols, meta["BLOCK_SIZE_COL"]),
        )

    index_select_cat_fwd_kernel[grid](
        output,
        source,
        index,
        num_indices,
        num_cols,
        stride0,
        stride1,
        BLOCK_SIZE_INDEX=1,
        BLOCK_SIZE_COL=512,
    )

    return output
