"""Tri Dao's Triton layer-norm / RMS-norm backward (flash-attention, ``flash_attn/ops/triton/layer_norm.py``,
BSD-3-Clause): ``@triton.autotune(configs=triton_autotune_configs(), key=[...six names...])`` of SETTINGS-ONLY
configs (``triton.Config({}, num_warps=w)`` for the warp counts whose threads fit 1024, a helper reading the device's
warp size); the flags passed POSITIONALLY after ``BLOCK_N`` (``is_rms_norm, BLOCK_N, dresidual is not None, ...``,
the heuristics commented out "torch compile doesn't like triton.heuristics"); a PERSISTENT row loop: the grid
``(sm_count,)`` with ``sm_count = multi_processor_count * 8`` ("Increasing the multiple ... will allow more thread
blocks ... but will increase the time of summing up dw / db"), ``rows_per_program = math.ceil(M / sm_count)``, each
program's partial ``dw`` / ``db`` rows in an ``(sm_count, N)`` buffer summed by torch; ``BLOCK_N = min(MAX_FUSED_SIZE,
next_power_of_2(N))`` with a host ``RuntimeError`` past 64 KB a row; the launch through ``torch.library.wrap_triton``.
Cut to layer norm / RMS norm with bias and a residual gradient (no second branch, dropout or row scale); off a GPU
the device counts are 4 SMs and 32 threads a warp."""

import math
from typing import Optional

import torch
import triton
import triton.language as tl
from torch import Tensor


def maybe_contiguous_lastdim(x):
    return x.contiguous() if x is not None and x.stride(-1) != 1 else x


def _device_props():
    return torch.cuda.get_device_properties(torch.cuda.current_device()) if torch.cuda.is_available() else None


def triton_autotune_configs():
    # the warp counts valid on this device
    configs = []
    # threads a block are 1024 on every architecture in practice
    max_threads_per_block = 1024
    # a warp is 32 threads where the device does not say
    warp_size = getattr(_device_props(), "warp_size", 32)
    # powers of two whose threads fit a block
    return [
        triton.Config({}, num_warps=warp_count)
        for warp_count in [1, 2, 4, 8, 16, 32]
        if warp_count * warp_size <= max_threads_per_block
    ]


@triton.autotune(
    configs=triton_autotune_configs(),
    key=["N", "HAS_DRESIDUAL", "STORE_DRESIDUAL", "IS_RMS_NORM", "HAS_BIAS"],
)
# torch compile doesn't like triton.heuristics, so these are set by hand at the call
# @triton.heuristics({"HAS_BIAS": lambda args: args["B"] is not None})
# @triton.heuristics({"HAS_DRESIDUAL": lambda args: args["DRESIDUAL"] is not None})
# @triton.heuristics({"STORE_DRESIDUAL": lambda args: args["DRESIDUAL_IN"] is not None})
@triton.jit
def _layer_norm_bwd_kernel(
    X,  # pointer to the input
    W,  # pointer to the weights
    B,  # pointer to the biases
    DY,  # pointer to the output gradient
    DX,  # pointer to the input gradient
    DW,  # pointer to the partial sum of weights gradient
    DB,  # pointer to the partial sum of biases gradient
    DRESIDUAL,
    DRESIDUAL_IN,
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride_x_row,  # how much to increase the pointer when moving by 1 row
    stride_dy_row,
    stride_dx_row,
    stride_dres_row,
    stride_dres_in_row,
    M,  # number of rows in X
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    zero_centered_weight,
    rows_per_program,
    IS_RMS_NORM: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HAS_DRESIDUAL: tl.constexpr,
    STORE_DRESIDUAL: tl.constexpr,
    HAS_BIAS: tl.constexpr,
):
    # Map the program id to the elements of X, DX, and DY it should compute.
    row_block_id = tl.program_id(0)
    row_start = row_block_id * rows_per_program
    # Do not early exit if row_start >= M, because we need to write DW and DB
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    X += row_start * stride_x_row
    if HAS_DRESIDUAL:
        DRESIDUAL += row_start * stride_dres_row
    if STORE_DRESIDUAL:
        DRESIDUAL_IN += row_start * stride_dres_in_row
    DY += row_start * stride_dy_row
    DX += row_start * stride_dx_row
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    if zero_centered_weight:
        w += 1.0
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    if HAS_BIAS:
        db = tl.zeros((BLOCK_N,), dtype=tl.float32)
    row_end = min((row_block_id + 1) * rows_per_program, M)
    for row in range(row_start, row_end):
        # Load data to SRAM
        x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
        dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
        if not IS_RMS_NORM:
            mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        # Compute dx
        xhat = (x - mean) * rstd if not IS_RMS_NORM else x * rstd
        xhat = tl.where(mask, xhat, 0.0)
        wdy = w * dy
        dw += dy * xhat
        if HAS_BIAS:
            db += dy
        if not IS_RMS_NORM:
            c1 = tl.sum(xhat * wdy, axis=0) / N
            c2 = tl.sum(wdy, axis=0) / N
            dx = (wdy - (xhat * c1 + c2)) * rstd
        else:
            c1 = tl.sum(xhat * wdy, axis=0) / N
            dx = (wdy - xhat * c1) * rstd
        if HAS_DRESIDUAL:
            dres = tl.load(DRESIDUAL + cols, mask=mask, other=0).to(tl.float32)
            dx += dres
        # Write dx
        if STORE_DRESIDUAL:
            tl.store(DRESIDUAL_IN + cols, dx, mask=mask)
        tl.store(DX + cols, dx, mask=mask)

        X += stride_x_row
        if HAS_DRESIDUAL:
            DRESIDUAL += stride_dres_row
        if STORE_DRESIDUAL:
            DRESIDUAL_IN += stride_dres_in_row
        DY += stride_dy_row
        DX += stride_dx_row
    tl.store(DW + row_block_id * N + cols, dw, mask=mask)
    if HAS_BIAS:
        tl.store(DB + row_block_id * N + cols, db, mask=mask)


def _layer_norm_bwd_impl(
    dy: Tensor,
    x: Tensor,
    weight: Tensor,
    bias: Optional[Tensor],
    eps: float,
    mean: Optional[Tensor],
    rstd: Tensor,
    dresidual: Optional[Tensor] = None,
    zero_centered_weight: bool = False,
    is_rms_norm: bool = False,
):
    M, N = x.shape
    assert x.stride(-1) == 1
    dy = maybe_contiguous_lastdim(dy)
    assert dy.stride(-1) == 1
    assert dy.shape == (M, N)
    if dresidual is not None:
        dresidual = maybe_contiguous_lastdim(dresidual)
        assert dresidual.stride(-1) == 1
        assert dresidual.shape == (M, N)
    assert weight.shape == (N,)
    assert weight.stride(-1) == 1
    if bias is not None:
        assert bias.stride(-1) == 1
        assert bias.shape == (N,)
    # allocate output
    dx = torch.empty_like(x)
    dresidual_in = None

    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_N:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    # A larger multiple (e.g. 8) launches more thread blocks to hide the latency of the gmem reads / writes,
    # but makes summing dw / db take longer.
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    sm_count = sms * 8
    _dw = torch.empty((sm_count, N), dtype=torch.float32, device=weight.device)
    _db = torch.empty((sm_count, N), dtype=torch.float32, device=bias.device) if bias is not None else None
    rows_per_program = math.ceil(M / sm_count)
    grid = (sm_count,)
    with torch.cuda.device(x.device.index):
        torch.library.wrap_triton(_layer_norm_bwd_kernel)[grid](
            x,
            weight,
            bias,
            dy,
            dx,
            _dw,
            _db,
            dresidual,
            dresidual_in,
            mean,
            rstd,
            x.stride(0),
            dy.stride(0),
            dx.stride(0),
            dresidual.stride(0) if dresidual is not None else 0,
            dresidual_in.stride(0) if dresidual_in is not None else 0,
            M,
            N,
            eps,
            # a bool makes torch inductor compare it to int_max
            int(zero_centered_weight),
            rows_per_program,
            is_rms_norm,
            BLOCK_N,
            dresidual is not None,
            dresidual_in is not None,
            bias is not None,
        )
    dw = _dw.sum(0).to(weight.dtype)
    db = _db.sum(0).to(bias.dtype) if bias is not None else None
    return dx, dw, db


def run(x, weight, bias, dy, dresidual):
    eps = 1e-5
    xf = x.float()
    mean = xf.mean(-1)
    rstd = torch.rsqrt((xf - mean[:, None]).square().mean(-1) + eps)
    dx, dw, db = _layer_norm_bwd_impl(dy, x, weight, bias, eps, mean, rstd, dresidual=dresidual)
    # the RMS form: no mean, no bias, no residual gradient
    rrms = torch.rsqrt(xf.square().mean(-1) + eps)
    rdx, rdw, _ = _layer_norm_bwd_impl(dy, x, weight, None, eps, None, rrms, is_rms_norm=True)
    return dx, dw, db, rdx, rdw
