"""Kernl's layer norm (kernl/implementations/layer_norm.py): ``_layer_norm_fwd_fused_single_pass``, one program a row,
Welford's running mean and variance over the row in ``BLOCK_SIZE`` steps (``n_end_off = min(start + BLOCK_SIZE, N)``,
the block's own mean merged into the running one), then a second loop writing ``(a - mean) * rstd * w + b``; the KERNEL
A PARAMETER of the launcher (``implementation: JITFunction = _layer_norm_fwd_fused_single_pass``, launched as
``implementation[(M,)](...)``, every argument by keyword); the block a chain ``min(MAX_FUSED_SIZE,
next_power_of_2(N))``, ``max(BLOCK_SIZE, 128)``, ``min(BLOCK_SIZE, 4096)`` with ``MAX_FUSED_SIZE = 65536 //
x.element_size()``, ``num_warps = min(max(BLOCK_SIZE // 256, 1), 8)``; mean and rstd saved in ``torch.empty`` rows;
``eviction_policy`` on the loads; an ``autograd.Function``."""

from typing import Optional

import torch
import triton
import triton.language as tl
from triton import JITFunction


@triton.jit
def _layer_norm_fwd_fused_single_pass(
    output_ptr,
    a_ptr,
    weight_ptr,
    bias_ptr,
    mean_ptr,
    rstd_ptr,
    output_row_stride,
    output_col_stride,
    a_row_stride,
    a_col_stride,
    N,
    eps,
    HAS_BIAS: tl.constexpr,
    IS_RMSNORM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)

    a_row_off = row_idx * a_row_stride
    block_range_offs = tl.arange(0, BLOCK_SIZE)
    mean = 0.0
    var = 0.0
    for block_n_start_idx in range(0, N, BLOCK_SIZE):
        n_end_off = min((block_n_start_idx + BLOCK_SIZE), N)
        block_cols_count = n_end_off - block_n_start_idx
        col_offs = block_n_start_idx + block_range_offs
        a_ptr_mask = col_offs < N
        a = tl.load(
            a_ptr + a_row_off + col_offs * a_col_stride, mask=a_ptr_mask, other=0.0, eviction_policy="evict_last"
        ).to(tl.float32)
        if IS_RMSNORM:
            var += tl.sum(a * a, axis=0)
        else:
            block_mean = tl.sum(a, axis=0) / block_cols_count
            delta_mean = block_mean - mean
            delta_mean_sqr = delta_mean * delta_mean

            block_delta = tl.sum((a - block_mean) * a, axis=0)
            mean += tl.sum((a - mean) * a_ptr_mask, axis=0) / n_end_off
            var += block_delta + delta_mean_sqr * (block_n_start_idx * block_cols_count) / n_end_off

    var /= N
    rstd = 1 / tl.sqrt(var + eps)

    tl.store(mean_ptr + row_idx, mean)
    tl.store(rstd_ptr + row_idx, rstd)

    for block_n_start_idx in range(0, N, BLOCK_SIZE):
        col_offs = block_n_start_idx + block_range_offs
        a_ptr_mask = col_offs < N
        weight = tl.load(weight_ptr + col_offs, mask=a_ptr_mask)

        a = tl.load(
            a_ptr + a_row_off + col_offs * a_col_stride, mask=a_ptr_mask, other=0.0, eviction_policy="evict_first"
        ).to(tl.float32)
        a_hat = (a - mean) * rstd
        out = a_hat * weight
        if HAS_BIAS:
            bias = tl.load(bias_ptr + col_offs, mask=a_ptr_mask)
            out = out + bias
        tl.store(output_ptr + row_idx * output_row_stride + col_offs * output_col_stride, out, mask=a_ptr_mask)


class LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx,
        x: torch.Tensor,
        weight: torch.Tensor,
        bias: Optional[torch.Tensor],
        eps: float,
        implementation: JITFunction,
        use_rms_norm: bool,
    ):
        assert x.dtype == weight.dtype, f"input and weight bias must have the same dtype: {x.dtype}, {weight.dtype}"
        if bias is not None:
            assert x.dtype == bias.dtype, f"input and bias must have the same dtype: {x.dtype}, {bias.dtype}"
        if x.dtype == torch.float16:
            eps = max(eps, 1.6e-5)
        out = torch.empty_like(x)
        a_arg = x.reshape(-1, x.shape[-1])
        M, N = a_arg.shape
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        std = torch.empty((M,), dtype=torch.float32, device=x.device)
        # Less than 64KB per feature: enqueue fused kernel
        MAX_FUSED_SIZE = 65536 // x.element_size()
        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
        BLOCK_SIZE = max(BLOCK_SIZE, 128)
        BLOCK_SIZE = min(BLOCK_SIZE, 4096)
        # heuristics for number of warps
        num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
        implementation[(M,)](
            output_ptr=out,
            a_ptr=a_arg,
            weight_ptr=weight,
            bias_ptr=bias if bias is not None else a_arg,
            mean_ptr=mean,
            rstd_ptr=std,
            output_row_stride=out.stride(-2),
            output_col_stride=out.stride(-1),
            a_row_stride=a_arg.stride(0),
            a_col_stride=a_arg.stride(1),
            N=N,
            eps=eps,
            HAS_BIAS=bias is not None,
            IS_RMSNORM=use_rms_norm,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
        ctx.save_for_backward(x, mean, std, weight)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        return out


def layer_norm(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: Optional[torch.Tensor],
    eps: float,
    implementation: JITFunction = _layer_norm_fwd_fused_single_pass,
    use_rms_norm: bool = False,
):
    return LayerNorm.apply(x, weight, bias, eps, implementation, use_rms_norm)


def run(x, weight, bias):
    return layer_norm(x, weight, bias, 1e-5)
