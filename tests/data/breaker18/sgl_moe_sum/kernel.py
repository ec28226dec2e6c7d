"""SGLang's ``moe_sum_reduce_triton`` (sglang/srt/layers/moe/fused_moe_triton): each token's ``topk`` expert
outputs summed and scaled by ``routed_scaling_factor`` (a ``tl.constexpr`` float); the loop over the experts
``tl.range(0, topk_num, num_stages=NUM_STAGE)``; sizes annotated ``token_num: int``; every stride passed
(``*input.stride()``), the output here a COLUMN SLICE of a wider buffer (non-contiguous rows); the settings locals
(``BLOCK_M = 1``, ``BLOCK_DIM = 2048``, ``NUM_STAGE = 1``, ``num_warps = 16``) and the grid a plain tuple of
``cdiv``s; ``assert input.shape[0] == output.shape[0]``, all arguments by keyword after the pointers."""

import torch
import triton
import triton.language as tl


@triton.jit
def _moe_sum_reduce_kernel(
    input_ptr, input_stride_0, input_stride_1, input_stride_2,
    output_ptr, output_stride_0, output_stride_1,
    token_num: int, topk_num: int, hidden_dim: int,
    routed_scaling_factor: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_DIM: tl.constexpr, NUM_STAGE: tl.constexpr,
):
    input_stride_0 = tl.cast(input_stride_0, dtype=tl.int64)
    input_stride_1 = tl.cast(input_stride_1, dtype=tl.int64)
    output_stride_0 = tl.cast(output_stride_0, dtype=tl.int64)

    token_block_id = tl.program_id(0)
    dim_block_id = tl.program_id(1)

    offs_token = token_block_id * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_dim = dim_block_id * BLOCK_DIM + tl.arange(0, BLOCK_DIM)

    mask_token = offs_token < token_num
    mask_dim = offs_dim < hidden_dim

    base_ptrs = input_ptr + offs_token[:, None] * input_stride_0 + offs_dim[None, :] * input_stride_2

    accumulator = tl.zeros((BLOCK_M, BLOCK_DIM), dtype=tl.float32)
    for i in tl.range(0, topk_num, num_stages=NUM_STAGE):
        tile = tl.load(base_ptrs + i * input_stride_1, mask=mask_token[:, None] & mask_dim[None, :], other=0.0)
        accumulator += tile.to(tl.float32)
    accumulator *= routed_scaling_factor

    store_t_ptrs = output_ptr + offs_token[:, None] * output_stride_0 + offs_dim[None, :] * output_stride_1
    tl.store(
        store_t_ptrs,
        accumulator.to(input_ptr.dtype.element_ty),
        mask=mask_token[:, None] & mask_dim[None, :],
    )


def moe_sum_reduce_triton(input: torch.Tensor, output: torch.Tensor, routed_scaling_factor: float):
    assert input.shape[0] == output.shape[0], "token counts differ"
    assert input.shape[2] == output.shape[1], "hidden sizes differ"
    token_num, topk_num, hidden_dim = input.shape

    BLOCK_M = 1
    BLOCK_DIM = 2048
    NUM_STAGE = 1
    num_warps = 16

    grid = (
        triton.cdiv(token_num, BLOCK_M),
        triton.cdiv(hidden_dim, BLOCK_DIM),
    )

    _moe_sum_reduce_kernel[grid](
        input, *input.stride(),
        output, *output.stride(),
        token_num=token_num, topk_num=topk_num, hidden_dim=hidden_dim,
        routed_scaling_factor=routed_scaling_factor,
        BLOCK_M=BLOCK_M, BLOCK_DIM=BLOCK_DIM, NUM_STAGE=NUM_STAGE,
        num_warps=num_warps,
    )


def run(x):
    T, topk, H = x.shape
    buf = torch.empty((T, H + 64), dtype=x.dtype, device=x.device)
    out = buf[:, :H]
    moe_sum_reduce_triton(x, out, 2.5)
    return out
