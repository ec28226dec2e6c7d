"""Liger-Kernel's group norm backward (``_group_norm_backward_kernel``): one program a (sample, group), grid
``(batch_size, num_groups)``; for each channel of its group a ``tl.range`` loop over the channel's values in
``BLOCK_SIZE`` steps gathers that channel's dW / dB (added into ``torch.zeros`` by ``tl.atomic_add``: every sample's
program adds to the same channels) and the group's two sums, then a second pass writes dX;
``BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))`` with ``MAX_FUSED_SIZE = 65536``, the sizes
``hidden_size`` / ``channels_per_group`` / ``num_groups`` constexprs passed positionally, ``dtype`` a ``tl`` dtype
chosen from the input's (``tl.float32 if X.dtype == torch.float32 else tl.bfloat16``) by keyword; no ``num_warps``."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


@triton.jit
def _group_norm_backward_kernel(
    X_ptr,  # (batch, channels, hidden)
    X_row_stride,
    X_col_stride,
    W_ptr,
    Mean_ptr,  # (batch, groups)
    Mean_ptr_row_stride,
    Mean_ptr_col_stride,
    RSTD_ptr,
    DX_ptr,
    DW_ptr,
    DB_ptr,
    UPSTREAM_ptr,
    hidden_size: tl.constexpr,
    channels_per_group: tl.constexpr,
    num_groups: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    dtype: tl.constexpr,
):
    batch_idx = tl.program_id(0)
    group_idx = tl.program_id(1)

    X_ptr += batch_idx * X_row_stride
    DX_ptr += batch_idx * X_row_stride
    UPSTREAM_ptr += batch_idx * X_row_stride

    mean = tl.load(Mean_ptr + batch_idx * Mean_ptr_row_stride + group_idx * Mean_ptr_col_stride)
    rstd = tl.load(RSTD_ptr + batch_idx * Mean_ptr_row_stride + group_idx * Mean_ptr_col_stride)

    c1 = 0.0
    c2 = 0.0
    block_range = tl.arange(0, BLOCK_SIZE)

    # the sums of the backward's equations over every channel of the group
    for channel_idx in range(group_idx * channels_per_group, (group_idx + 1) * channels_per_group):
        dW = 0.0
        dB = 0.0
        W = tl.load(W_ptr + channel_idx)
        for i in tl.range(0, hidden_size, BLOCK_SIZE):
            hidden_size_offsets = i + block_range
            mask = hidden_size_offsets < hidden_size
            X = tl.load(X_ptr + channel_idx * X_col_stride + hidden_size_offsets, mask=mask, other=0.0)
            UPSTREAM_grad = tl.load(
                UPSTREAM_ptr + channel_idx * X_col_stride + hidden_size_offsets, mask=mask, other=0.0
            )
            x_hat = (X - mean) * rstd
            dW += tl.sum(UPSTREAM_grad * x_hat)
            dB += tl.sum(UPSTREAM_grad)
            wdy = W * UPSTREAM_grad
            c1 += tl.sum(x_hat * wdy)
            c2 += tl.sum(wdy)

        # every sample adds into the same channel
        tl.atomic_add(DW_ptr + channel_idx, dW.to(dtype))
        tl.atomic_add(DB_ptr + channel_idx, dB.to(dtype))

    N = hidden_size * channels_per_group
    c1 = c1 / N
    c2 = c2 / N

    for channel_idx in tl.range(group_idx * channels_per_group, (group_idx + 1) * channels_per_group):
        W = tl.load(W_ptr + channel_idx)
        for i in range(0, hidden_size, BLOCK_SIZE):
            hidden_size_offsets = i + block_range
            mask = hidden_size_offsets < hidden_size
            X = tl.load(X_ptr + channel_idx * X_col_stride + hidden_size_offsets, mask=mask, other=0.0)
            UPSTREAM_grad = tl.load(
                UPSTREAM_ptr + channel_idx * X_col_stride + hidden_size_offsets, mask=mask, other=0.0
            )
            x_hat = (X - mean) * rstd
            wdy = W * UPSTREAM_grad
            dx = (wdy - (x_hat * c1 + c2)) * rstd
            tl.store(DX_ptr + channel_idx * X_col_stride + hidden_size_offsets, dx, mask=mask)


def group_norm_backward(dY, X, W, B, Mean, RSTD, num_channels, num_groups):
    shape = dY.shape
    batch_size = shape[0]
    hidden_size = dY.shape[-1]
    channels_per_group = num_channels // num_groups
    dY = dY.view(batch_size, num_channels, -1)
    DX = torch.empty((batch_size, num_channels, hidden_size), dtype=X.dtype, device=X.device)
    DW = torch.zeros((num_channels), dtype=W.dtype, device=W.device)
    DB = torch.zeros((num_channels), dtype=B.dtype, device=B.device)
    triton_dtype = tl.float32 if X.dtype == torch.float32 else tl.bfloat16

    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    _group_norm_backward_kernel[(batch_size, num_groups)](
        X,
        X.stride(0),
        X.stride(1),
        W,
        Mean,
        Mean.stride(0),
        Mean.stride(1),
        RSTD,
        DX,
        DW,
        DB,
        dY,
        hidden_size,
        channels_per_group,
        num_groups,
        BLOCK_SIZE=BLOCK_SIZE,
        dtype=triton_dtype,
    )
    return DX.view(*shape), DW, DB


def run(dy, x, w, b, mean, rstd, groups):
    return group_norm_backward(dy, x, w, b, mean, rstd, x.shape[1], int(groups))
