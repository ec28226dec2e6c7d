"""Liger-Kernel's group norm forward: one program a (sample, group), two passes over the group's
``channels_per_group * hidden`` values in ``BLOCK_SIZE`` steps (``tl.range``), the first for the sum and the sum of
squares, the second channel by channel (``for channel_idx in tl.range(group_idx * channels_per_group, ...)``) with
the channel's weight and bias. ``BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))`` where
``hidden_size`` is the whole group's length, ``MAX_FUSED_SIZE = 65536`` a module constant; grid ``(batch_size,
num_groups)``; ``rsqrt`` imported from libdevice by a try / except over Triton's module paths."""

import torch
import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt

MAX_FUSED_SIZE = 65536
GROUPS = 4


@triton.jit
def _group_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    Y_col_stride,
    X_ptr,
    X_row_stride,
    X_col_stride,
    Mean_ptr,
    Mean_row_stride,
    Mean_col_stride,
    RSTD_ptr,
    RSTD_row_stride,
    RSTD_col_stride,
    W_ptr,
    B_ptr,
    hidden_size,
    channels_per_group,
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    batch_idx = tl.program_id(0)
    group_idx = tl.program_id(1)

    X_ptr += batch_idx * X_row_stride + group_idx * X_col_stride
    Y_ptr += batch_idx * Y_row_stride + group_idx * Y_col_stride

    block_range = tl.arange(0, BLOCK_SIZE)

    s = 0.0
    squared_sum = 0.0
    for i in tl.range(0, hidden_size, BLOCK_SIZE):
        hidden_size_offsets = i + block_range
        mask = hidden_size_offsets < hidden_size
        X = tl.load(X_ptr + hidden_size_offsets, mask=mask, other=0.0)
        s += tl.sum(X)
        squared_sum += tl.sum(X * X)

    m = s / hidden_size
    variance = (squared_sum / hidden_size) - (m * m)
    rstd = rsqrt(variance + eps)

    hidden_size_per_channel = hidden_size // channels_per_group
    for channel_idx in tl.range(group_idx * channels_per_group, (group_idx + 1) * channels_per_group):
        W = tl.load(W_ptr + channel_idx)
        B = tl.load(B_ptr + channel_idx)
        for i in range(0, hidden_size_per_channel, BLOCK_SIZE):
            hidden_size_offsets = i + block_range
            mask = hidden_size_offsets < hidden_size_per_channel
            X = tl.load(X_ptr + hidden_size_offsets, mask=mask, other=m)
            Y = (X - m) * rstd * W + B
            tl.store(Y_ptr + hidden_size_offsets, Y, mask=mask)
        X_ptr += hidden_size_per_channel
        Y_ptr += hidden_size_per_channel

    tl.store(Mean_ptr + batch_idx * Mean_row_stride + group_idx * Mean_col_stride, m)
    tl.store(RSTD_ptr + batch_idx * RSTD_row_stride + group_idx * RSTD_col_stride, rstd)


def group_norm_forward(X, num_channels, num_groups, W, B, eps):
    shape = X.shape
    batch_size = shape[0]
    channels_per_group = num_channels // num_groups
    X = X.view(batch_size, num_groups, -1).contiguous()
    hidden_size = X.shape[-1]
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    Y = torch.empty((batch_size, num_groups, hidden_size), dtype=X.dtype, device=X.device)
    Mean = torch.zeros((batch_size, num_groups), dtype=X.dtype, device=X.device)
    RSTD = torch.zeros((batch_size, num_groups), dtype=X.dtype, device=X.device)

    _group_norm_forward_kernel[(batch_size, num_groups)](
        Y,
        Y.stride(0),
        Y.stride(1),
        X,
        X.stride(0),
        X.stride(1),
        Mean,
        Mean.stride(0),
        Mean.stride(1),
        RSTD,
        RSTD.stride(0),
        RSTD.stride(1),
        W,
        B,
        hidden_size,
        channels_per_group,
        eps,
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return Y.view(*shape), Mean, RSTD


def run(x, weight, bias):
    y, _, _ = group_norm_forward(x, x.shape[1], GROUPS, weight, bias, 1e-6)
    return y

