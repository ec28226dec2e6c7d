"""RMSNorm backward as Liger-Kernel writes it: one program per SM (sm_count programs; 1 off a GPU), each walking
rows_per_program rows, writing dX and accumulating its own partial row of dW, which the host sums; the block
covers the row (calculate_settings: next_power_of_2, warps by the block)."""

import math

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the recommended Triton blocksize = "
                           f"{MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rms_norm_backward_kernel(dY_ptr, dY_row_stride, dX_ptr, dX_row_stride, X_ptr, X_row_stride, W_ptr, RSTD_ptr,
                              dW_ptr, dW_row_stride, n_rows, n_cols, offset, rows_per_program,
                              BLOCK_SIZE: tl.constexpr):
    row_block_id = tl.program_id(0).to(tl.int64)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0) + offset
    for row_idx in range(row_start, row_end):
        dY_row = tl.load(dY_ptr + row_idx * dY_row_stride + col_offsets, mask=mask, other=0.0)
        X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0.0)
        rstd_row = tl.load(RSTD_ptr + row_idx)
        m = dY_row * W_row
        dX_row = rstd_row * m
        dX_row += rstd_row * (-(1 / n_cols) * rstd_row * rstd_row * tl.sum(m * X_row, axis=0) * X_row)
        dW_row += dY_row * (X_row * rstd_row)
        tl.store(dX_ptr + row_idx * dX_row_stride + col_offsets, dX_row, mask=mask)
    tl.store(dW_ptr + row_block_id * dW_row_stride + col_offsets, dW_row, mask=mask)


def rms_norm_backward(dY, X, W, RSTD, offset):
    shape = dY.shape
    dim = shape[-1]
    dY = dY.view(-1, dim)
    n_rows, n_cols = dY.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    sm_count = 1
    if X.device.type == "cuda":
        sm_count = torch.cuda.get_device_properties(X.device).multi_processor_count
    _dW = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
    dX = torch.empty_like(dY)
    rows_per_program = math.ceil(n_rows / sm_count)
    grid = (sm_count,)
    _rms_norm_backward_kernel[grid](
        dY, dY.stride(0), dX, dX.stride(0), X, X.stride(0), W, RSTD, _dW, _dW.stride(0), n_rows, n_cols, offset,
        rows_per_program, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return dX.view(*shape), _dW.sum(dim=0).to(W.dtype)


def run(dy, x, w):
    rstd = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)
    dx, dw = rms_norm_backward(dy, x, w, rstd, 0.0)
    return dx, dw
