"""Unsloth's fast RMS layernorm (unsloth/kernels/rms_layernorm.py) forward and backward through a
``torch.autograd.Function``: both kernels take ``BLOCK_SIZE, num_warps = calculate_settings(n_cols)`` (which RAISES
above ``MAX_FUSED_SIZE``), here a ``functools.lru_cache``d module helper; the forward saves ``ctx.BLOCK_SIZE`` /
``ctx.num_warps`` for the backward; the inverse RMS ``r`` kept per row for the backward."""

import functools

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


@functools.lru_cache(maxsize=None)
def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rms_layernorm_forward(
    Y, Y_row_stride, X, X_row_stride, W, r, n_cols, eps, BLOCK_SIZE: tl.constexpr
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx

    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0)

    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = X_row * inv_var
    normed = normed.to(W_row.dtype)
    output = normed * W_row
    tl.store(Y + col_offsets, output, mask=mask)


@triton.jit
def _rms_layernorm_backward(
    dY, dY_row_stride, dX, dX_row_stride, X, X_row_stride, W, r, n_cols, BLOCK_SIZE: tl.constexpr
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    dY += row_idx * dY_row_stride
    X += row_idx * X_row_stride
    dX += row_idx * dX_row_stride
    r += row_idx

    dY_row = tl.load(dY + col_offsets, mask=mask, other=0).to(tl.float32)
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0).to(tl.float32)

    inv_var = tl.load(r).to(tl.float32)
    normed = X_row * inv_var
    dY_W = dY_row * W_row
    rowsum_dY_normed = tl.sum(dY_W * normed, axis=0)
    output = inv_var / n_cols * (n_cols * dY_W - normed * rowsum_dY_normed)
    tl.store(dX + col_offsets, output, mask=mask)


class Fast_RMS_Layernorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, eps):
        shape = X.shape
        dim = shape[-1]
        X = X.view(-1, dim)
        n_rows, n_cols = X.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
        r = torch.empty(n_rows, dtype=torch.float32, device=X.device)
        _rms_layernorm_forward[(n_rows,)](
            Y, Y.stride(0), X, X.stride(0), W, r, n_cols, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
        )
        ctx.eps = eps
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.save_for_backward(X, W, r)
        return Y.view(*shape)

    @staticmethod
    def backward(ctx, dY):
        shape = dY.shape
        dim = shape[-1]
        dY = dY.reshape(-1, dim)
        X, W, r = ctx.saved_tensors
        n_rows, n_cols = dY.shape
        dX = torch.empty_like(dY)
        _rms_layernorm_backward[(n_rows,)](
            dY, dY.stride(0), dX, dX.stride(0), X, X.stride(0), W, r, n_cols,
            BLOCK_SIZE=ctx.BLOCK_SIZE, num_warps=ctx.num_warps,
        )
        return dX.view(*shape), None, None


def run(x, w, dy):
    x = x.detach().requires_grad_(True)
    y = Fast_RMS_Layernorm.apply(x, w, 1e-6)
    (dx,) = torch.autograd.grad(y, (x,), dy)
    return y.detach(), dx
