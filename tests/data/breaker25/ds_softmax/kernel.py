"""DeepSpeed's inference softmax in Triton (``deepspeed/ops/transformer/inference/triton/softmax.py``; Apache-2.0;
modified by its authors from Triton's fused-softmax tutorial). One row a program, the whole row ONE block:
``BLOCK_SIZE = max(triton.next_power_of_2(n_cols), 2)`` and ``num_warps`` a CHAIN of ``if``s on it (4, 8 from 2048,
16 from 4096), both locals passed by keyword; the row stride ``input_arg.stride(0)`` serves input AND output (the
output is ``torch.empty_like(input)``); a masked variant adds an additive mask after the max is taken, its rows
broadcast by ``mask_stride = 0`` when the mask has one row (``mask.shape[-2] > 1``). ``run`` calls ``softmax``
twice: without a mask over a 3-D input, and with a per-row additive mask over a 2-D view.

Kept as the authors wrote it; comments reworded."""

import torch
import triton
import triton.language as tl
'''
softmax
modified from the triton kernel in
https://github.com/openai/triton/blob/34817ecc954a6f4ca7b4dfb352fdde1f8bd49ca5/python/tutorials/02-fused-softmax.py
'''


@triton.jit
def softmax_kernel(output_ptr, input_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float('inf')).to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


@triton.jit
def masked_softmax_kernel(output_ptr, input_ptr, stride, mask_ptr, mask_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask_ptrs = mask_ptr + col_offsets + row_idx * mask_stride  # mask_stride is 0 for a 1-row mask
    row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float('inf')).to(tl.float32)
    mask = tl.load(mask_ptrs, mask=col_offsets < n_cols, other=0).to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    row_minus_max = row_minus_max + mask
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


def softmax(input: torch.Tensor, mask: torch.Tensor = None, dim=-1) -> torch.Tensor:
    assert input.is_contiguous()
    assert (dim == -1) or (dim == len(input.shape) - 1), "Only dim=-1 is supported"

    use_mask = False if mask is None else True
    input_arg = input.view(-1, input.shape[-1])
    n_rows, n_cols = input_arg.shape
    BLOCK_SIZE = max(triton.next_power_of_2(n_cols), 2)
    num_warps = 4
    if BLOCK_SIZE >= 2048:
        num_warps = 8
    if BLOCK_SIZE >= 4096:
        num_warps = 16
    # the output
    output = torch.empty_like(input)
    if use_mask:
        assert mask.is_contiguous()
        mask = mask.view(-1, mask.shape[-1])
        mask_stride = mask.shape[-1] if mask.shape[-2] > 1 else 0
        masked_softmax_kernel[(n_rows, )](
            output,
            input,
            input_arg.stride(0),
            mask,
            mask_stride,
            n_cols,
            num_warps=num_warps,
            BLOCK_SIZE=BLOCK_SIZE,
        )
    else:
        softmax_kernel[(n_rows, )](
            output,
            input,
            input_arg.stride(0),
            n_cols,
            num_warps=num_warps,
            BLOCK_SIZE=BLOCK_SIZE,
        )
    return output


def run(scores, mask):
    """The softmax of each row of scores, and of its 2-D view plus an additive mask of one row per row."""
    return softmax(scores), softmax(scores.view(-1, scores.shape[-1]), mask)
