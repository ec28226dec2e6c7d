"""attorch's layer norm forward (``attorch/layer_norm_kernels.py``): ``@triton.autotune(configs=warps_kernel_configs(),
key=["batch_dim", "feat_dim"])`` whose configs set only ``num_warps`` (``triton.Config({}, num_warps=2 ** i)``), over
``@triton.heuristics`` that derive both blocks: ``BLOCK_SIZE_BATCH`` from a named module function
(``BLOCK_SIZE_BATCH_heuristic``: several rows a program when the features are few) and ``BLOCK_SIZE_FEAT`` from a
lambda (``next_power_of_2(feat_dim)``, the whole row one block). ``scale_by_weight`` / ``add_bias`` /
``save_stats`` are constexpr flags; the grid ``lambda META`` reads ``BLOCK_SIZE_BATCH``."""

import torch
import triton
import triton.language as tl
from triton import cdiv, next_power_of_2


def warps_kernel_configs():
    return [triton.Config({}, num_warps=2**i) for i in range(6)]


def BLOCK_SIZE_BATCH_heuristic(args):
    block_size_batch = max(1, triton.next_power_of_2(args["batch_dim"] // 2**10))
    block_size_batch = min(block_size_batch, 128)
    block_size_batch = block_size_batch if args["feat_dim"] < 64 else 1
    return block_size_batch


@triton.autotune(
    configs=warps_kernel_configs(),
    key=["batch_dim", "feat_dim"],
)
@triton.heuristics(
    {
        "BLOCK_SIZE_BATCH": BLOCK_SIZE_BATCH_heuristic,
        "BLOCK_SIZE_FEAT": lambda args: next_power_of_2(args["feat_dim"]),
    }
)
@triton.jit
def layer_norm_forward_kernel(
    input_pointer, weight_pointer, bias_pointer, mean_pointer, inv_std_pointer, output_pointer,
    batch_dim, feat_dim,
    input_batch_stride, input_feat_stride,
    output_batch_stride, output_feat_stride,
    eps,
    scale_by_weight: tl.constexpr, add_bias: tl.constexpr, save_stats: tl.constexpr,
    BLOCK_SIZE_BATCH: tl.constexpr, BLOCK_SIZE_FEAT: tl.constexpr,
):
    batch_pid = tl.program_id(axis=0)

    batch_offset = batch_pid * BLOCK_SIZE_BATCH + tl.arange(0, BLOCK_SIZE_BATCH)
    feat_offset = tl.arange(0, BLOCK_SIZE_FEAT)

    batch_mask = batch_offset < batch_dim
    feat_mask = feat_offset < feat_dim

    input_pointer += input_batch_stride * batch_offset[:, None] + input_feat_stride * feat_offset[None, :]
    output_pointer += output_batch_stride * batch_offset[:, None] + output_feat_stride * feat_offset[None, :]

    input = tl.load(input_pointer, mask=batch_mask[:, None] & feat_mask[None, :]).to(tl.float32)
    mean = tl.sum(input, axis=1) / feat_dim
    diff = tl.where(feat_mask[None, :], input - mean[:, None], 0)
    inv_std = tl.rsqrt(tl.sum(diff * diff, axis=1) / feat_dim + eps)

    if save_stats:
        tl.store(mean_pointer + batch_offset, mean, mask=batch_mask)
        tl.store(inv_std_pointer + batch_offset, inv_std, mask=batch_mask)

    output = diff * inv_std[:, None]
    if scale_by_weight:
        weight = tl.load(weight_pointer + feat_offset, mask=feat_mask)
        output *= weight
        if add_bias:
            bias = tl.load(bias_pointer + feat_offset, mask=feat_mask)
            output += bias

    tl.store(output_pointer, output, mask=batch_mask[:, None] & feat_mask[None, :])


def run(input, weight, bias, eps=1e-5):
    flattened_input = input.unsqueeze(0) if input.ndim == 1 else input
    flattened_input = flattened_input.flatten(0, -2)
    batch_dim, feat_dim = flattened_input.shape

    output = torch.empty_like(flattened_input)
    mean = torch.empty(batch_dim, device=input.device, dtype=torch.float32)
    inv_std = torch.empty(batch_dim, device=input.device, dtype=torch.float32)

    grid = lambda META: (cdiv(batch_dim, META["BLOCK_SIZE_BATCH"]),)  # noqa: E731
    layer_norm_forward_kernel[grid](
        flattened_input, weight, bias, mean, inv_std, output,
        batch_dim, feat_dim,
        *flattened_input.stride(), *output.stride(),
        eps,
        scale_by_weight=weight is not None, add_bias=bias is not None, save_stats=True,
    )
    return output.view_as(input)
