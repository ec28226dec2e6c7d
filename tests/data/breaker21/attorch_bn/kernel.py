"""attorch's batch normalization forward (``attorch/batch_norm_kernels.py``, ``batch_norm_layer.py`` and
``utils.py``, MIT): one program a feature, the statistics by a running update over ``BLOCK_SIZE_SPATIAL`` steps with
the WHOLE batch axis one block, then a second pass writing the output; the running mean and variance updated IN
PLACE (``restore_value=['running_mean_pointer', 'running_var_pointer']`` on the autotuner). ``@triton.autotune(
configs=warps_kernel_configs(), key=['batch_dim', 'spatial_dim'])`` (a helper: six configs of ``num_warps`` only)
over ``@triton.heuristics`` of ``BLOCK_SIZE_BATCH`` (a lambda, ``next_power_of_2(batch_dim)``) and
``BLOCK_SIZE_SPATIAL`` (a NAMED function capping ``next_power_of_2(spatial_dim)`` at ``2 ** 14 //
BLOCK_SIZE_BATCH``). The layer views a 4-D input as (N, C, H * W) and TRANSPOSES it to (H * W, C, N) when the
spatial size is over 1, so the "batch" block covers H * W and every read is strided; the strides splatted
``*input_3d.stride()``, the grid ``lambda _: (feat_dim,)``, the flags by keyword. Cut to the forward in training
mode without gradients (``save_stats`` off, ``mean`` / ``inv_std`` None)."""

from typing import Dict, List, Optional

import torch
import triton
import triton.language as tl
from torch import Tensor
from triton import next_power_of_2


def warps_kernel_configs() -> List[triton.Config]:
    """
    Returns kernel configurations with all possible number of warps.
    """
    return [triton.Config({}, num_warps=2**i) for i in range(6)]


def BLOCK_SIZE_SPATIAL_heuristic(args: Dict) -> int:
    """
    A spatial block size for batch normalization, by a heuristic.

    Args:
        args: Arguments to batch normalization kernel.

    Returns:
        The spatial block size.
    """
    BLOCK_SIZE_BATCH = next_power_of_2(args['batch_dim'])
    BLOCK_SIZE_SPATIAL = next_power_of_2(args['spatial_dim'])
    return min(BLOCK_SIZE_SPATIAL, max(1, 2 ** 14 // BLOCK_SIZE_BATCH))


@triton.autotune(
    configs=warps_kernel_configs(),
    key=['batch_dim', 'spatial_dim'],
    restore_value=['running_mean_pointer', 'running_var_pointer']
)
@triton.heuristics({'BLOCK_SIZE_BATCH': lambda args: next_power_of_2(args['batch_dim']),
                    'BLOCK_SIZE_SPATIAL': BLOCK_SIZE_SPATIAL_heuristic})
@triton.jit
def batch_norm_forward_kernel(
    input_pointer, weight_pointer, bias_pointer,
    mean_pointer, inv_std_pointer, output_pointer,
    running_mean_pointer, running_var_pointer,
    batch_dim, spatial_dim,
    input_batch_stride, input_feat_stride, input_spatial_stride,
    output_batch_stride, output_feat_stride, output_spatial_stride,
    momentum, eps,
    affine: tl.constexpr, save_stats: tl.constexpr,
    track_running_stats: tl.constexpr, is_train: tl.constexpr,
    BLOCK_SIZE_BATCH: tl.constexpr, BLOCK_SIZE_SPATIAL: tl.constexpr,
    ):
    """
    Batch-normalizes the input ([batch_dim, feat_dim, spatial_dim]; the weight, bias, mean, inverse standard
    deviation and running statistics [feat_dim] each, the optional ones written or read as the flags say).
    """
    feat_pid = tl.program_id(axis=0)

    batch_offset = tl.arange(0, BLOCK_SIZE_BATCH)
    batch_mask = batch_offset < batch_dim

    if is_train or not track_running_stats:
        count = 0
        mean = 0.0
        var = 0.0

        for block_ind in range(0, tl.cdiv(spatial_dim, BLOCK_SIZE_SPATIAL)):
            spatial_offset = (block_ind * BLOCK_SIZE_SPATIAL +
                              tl.arange(0, BLOCK_SIZE_SPATIAL))
            spatial_mask = spatial_offset < spatial_dim

            curr_input_pointer = (input_pointer +
                                  input_feat_stride * feat_pid +
                                  input_batch_stride * batch_offset[:, None] +
                                  input_spatial_stride * spatial_offset[None, :])
            curr_input = tl.load(curr_input_pointer,
                                 mask=batch_mask[:, None] & spatial_mask[None, :]).to(tl.float32)

            spatial_count = min(BLOCK_SIZE_SPATIAL, spatial_dim - block_ind * BLOCK_SIZE_SPATIAL)
            curr_count = spatial_count * batch_dim
            count += curr_count

            prev_mean = mean
            mean += (tl.sum(curr_input) - curr_count * mean) / count
            deltas = tl.where(batch_mask[:, None] & spatial_mask[None, :],
                              (curr_input - mean) * (curr_input - prev_mean), 0.)
            var += tl.sum(deltas)

        var /= count
        inv_std = 1 / tl.sqrt(var + eps)

        if save_stats:
            tl.store(feat_pid + mean_pointer, mean)
            tl.store(feat_pid + inv_std_pointer, inv_std)

        if track_running_stats:
            running_mean_pointer += feat_pid
            running_var_pointer += feat_pid

            running_mean = tl.load(running_mean_pointer)
            running_var = tl.load(running_var_pointer)

            n = batch_dim * spatial_dim
            tl.store(running_mean_pointer,
                     (1 - momentum) * running_mean + momentum * mean)
            tl.store(running_var_pointer,
                     (1 - momentum) * running_var + momentum * var * n / (n - 1))

    else:
        mean = tl.load(feat_pid + running_mean_pointer)
        inv_std = 1 / tl.sqrt(tl.load(feat_pid + running_var_pointer) + eps)

    if affine:
        weight = tl.load(feat_pid + weight_pointer)
        bias = tl.load(feat_pid + bias_pointer)

    else:
        weight = 1.
        bias = 0.

    for block_ind in range(0, tl.cdiv(spatial_dim, BLOCK_SIZE_SPATIAL)):
        spatial_offset = (block_ind * BLOCK_SIZE_SPATIAL +
                          tl.arange(0, BLOCK_SIZE_SPATIAL))
        spatial_mask = spatial_offset < spatial_dim

        curr_input_pointer = (input_pointer +
                              input_feat_stride * feat_pid +
                              input_batch_stride * batch_offset[:, None] +
                              input_spatial_stride * spatial_offset[None, :])
        curr_output_pointer = (output_pointer +
                               output_feat_stride * feat_pid +
                               output_batch_stride * batch_offset[:, None] +
                               output_spatial_stride * spatial_offset[None, :])

        curr_input = tl.load(curr_input_pointer,
                             mask=batch_mask[:, None] & spatial_mask[None, :]).to(tl.float32)
        output = weight * (curr_input - mean) * inv_std + bias
        tl.store(curr_output_pointer, output,
                 mask=batch_mask[:, None] & spatial_mask[None, :])


def make_3d_for_bn(input: Tensor) -> Tensor:
    """
    The input as a 3-D view for batch normalization.
    """
    if input.ndim == 2:
        input = input.unsqueeze(-1)

    elif input.ndim == 4:
        input = input.flatten(2, -1)

    return input


def batch_norm_forward(
    input: Tensor,
    training: bool,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    running_mean: Optional[Tensor] = None,
    running_var: Optional[Tensor] = None,
    momentum: float = 0.1,
    eps: float = 1e-5,
    track_running_stats: bool = True,
    ) -> Tensor:
    """BatchNormAutoGrad.forward of attorch's layer, without its context."""
    input_3d = make_3d_for_bn(input)
    transpose = False

    if input_3d.shape[-1] > 1:
        input_3d = input_3d.transpose(0, -1)
        transpose = True

    batch_dim, feat_dim, spatial_dim = input_3d.shape
    output = torch.empty_like(input_3d)

    affine = weight is not None and bias is not None
    requires_grad = (input.requires_grad or
                     (affine and weight.requires_grad) or
                     (affine and bias.requires_grad))

    if requires_grad:
        mean = torch.empty(feat_dim,
                           device=input.device,
                           dtype=torch.float32)
        inv_std = torch.empty(feat_dim,
                              device=input.device,
                              dtype=torch.float32)

    else:
        mean = inv_std = None

    running_mean = input if running_mean is None else running_mean
    running_var = input if running_var is None else running_var

    # a 1-D grid, one program a feature
    grid = lambda _: (feat_dim,)
    batch_norm_forward_kernel[grid](input_3d, weight, bias,
                                    mean, inv_std, output,
                                    running_mean, running_var,
                                    batch_dim, spatial_dim,
                                    *input_3d.stride(), *output.stride(),
                                    momentum, eps,
                                    affine=affine,
                                    save_stats=requires_grad,
                                    track_running_stats=track_running_stats,
                                    is_train=training)

    if transpose:
        output = output.transpose(0, -1)

    return output.view_as(input)


def run(x, weight, bias, running_mean, running_var):
    out = batch_norm_forward(x, True, weight, bias, running_mean, running_var, 0.1, 1e-5, True)
    return out, running_mean, running_var
