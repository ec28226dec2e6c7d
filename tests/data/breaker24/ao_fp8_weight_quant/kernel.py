"""torchao's blockwise fp8 weight quantization for training's right operand
(``torchao/prototype/blockwise_fp8_training/kernels.py``, ``triton_fp8_blockwise_weight_quant_rhs``, BSD-3-Clause):
one scale per ``block_size x block_size`` block of a row-major 2-D weight (``448 / amax``, the amax clamped at
``EPS`` and taken in FLOAT64), the cast clamped to the fp8 range and stored into a COLUMN-MAJOR ``float8_e4m3fn``
output (``as_strided(size, (1, M))``), the reciprocal scales ``tl.div_rn(1.0, scale)`` into a column-major float32
grid. Written by its authors to run under ``torch.compile``: a ``torch.library.triton_op`` launching
``wrap_triton(kernel)[grid]`` with a ``def grid(meta)`` closure. ``@triton.autotune`` of a module-level list BUILT BY
A COMPREHENSION of ``triton.Config({}, num_warps=..., num_stages=...)`` (no block in it) keyed on ``["M", "N"]``;
``BLOCK_SIZE`` is the launcher's keyword default ``block_size: int = 128``, the QUANTIZATION block (the scales' grain,
no tile to tune); ``M`` and ``N`` are ``tl.constexpr``; ``assert``s that both dimensions are multiples of the block
(the kernel's masks never needed).

One change: torchao's ``torchao.float8.config.e4m3_dtype`` (``float8_e4m3fn``, ``fnuz`` on ROCm) is a local name."""

from typing import Tuple

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

e4m3_dtype = torch.float8_e4m3fn

FP8_E4M3_DTYPES = {torch.float8_e4m3fn, torch.float8_e4m3fnuz}

EPS = 1e-12


# the quantization kernels' autotune configs
quant_kernel_configs = [
    triton.Config(
        {},
        num_warps=warps,
        num_stages=stages,
    )
    for warps in [4, 8]
    for stages in [2, 4]
]


@triton.autotune(configs=quant_kernel_configs, key=["M", "N"])
@triton.jit
def triton_fp8_blockwise_weight_quant_rhs_kernel(
    x_ptr,
    x_stride_dim_0,
    x_stride_dim_1,
    y_ptr,
    y_stride_dim_0,
    y_stride_dim_1,
    s_ptr,
    s_stride_dim_0,
    s_stride_dim_1,
    M: tl.constexpr,
    N: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    EPS: tl.constexpr,
    FP8_MAX: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    offs_m = pid_m * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    offs_n = pid_n * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)

    # one (block_size x block_size) block of the row-major x
    x_offs = offs_m[:, None] * x_stride_dim_0 + offs_n[None, :] * x_stride_dim_1
    x_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + x_offs, mask=x_mask)

    amax = tl.clamp(tl.max(tl.abs(x)), min=EPS, max=float("inf")).to(tl.float64)
    scale = (FP8_MAX / amax).to(tl.float32)
    y = x * scale
    y = tl.clamp(y, min=-FP8_MAX, max=FP8_MAX).to(y_ptr.dtype.element_ty)

    # the output, column major
    y_offs = offs_m[:, None] * y_stride_dim_0 + offs_n[None, :] * y_stride_dim_1
    y_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + y_offs, y, mask=y_mask)

    # the block's reciprocal scale (one value)
    scale_m_off = pid_m * s_stride_dim_0
    scale_n_off = pid_n * s_stride_dim_1
    tl.store(s_ptr + scale_m_off + scale_n_off, tl.div_rn(1.0, scale))


@triton_op("torchao::triton_fp8_blockwise_weight_quant_rhs", mutates_args={})
def triton_fp8_blockwise_weight_quant_rhs(
    x: torch.Tensor, block_size: int = 128, dtype: torch.dtype = e4m3_dtype
) -> Tuple[torch.Tensor, torch.Tensor]:
    assert x.is_contiguous(), "Input tensor must be contiguous"
    assert x.dim() == 2, "Input tensor must have 2 dimensions"
    assert x.size(0) % block_size == 0 and x.size(1) % block_size == 0, (
        f"Both dimensions of x must be divisible by block_size (block_size={block_size})"
    )
    assert dtype in FP8_E4M3_DTYPES, f"dtype must be one of {FP8_E4M3_DTYPES}"
    M, N = x.size()
    fp8_max = torch.finfo(dtype).max
    y = torch.empty_like(x, dtype=dtype)
    y = y.as_strided(y.size(), (1, y.size(0)))  # column major
    M_blocks, N_blocks = triton.cdiv(M, block_size), triton.cdiv(N, block_size)
    s = x.new_empty(M_blocks, N_blocks, dtype=torch.float32).as_strided(
        (M_blocks, N_blocks),  # shape
        (1, M_blocks),  # stride
    )

    def grid(meta):
        return (
            triton.cdiv(M, meta["BLOCK_SIZE"]),
            triton.cdiv(N, meta["BLOCK_SIZE"]),
        )

    wrap_triton(triton_fp8_blockwise_weight_quant_rhs_kernel)[grid](
        x,
        x.stride(0),
        x.stride(1),
        y,
        y.stride(0),
        y.stride(1),
        s,
        s.stride(0),
        s.stride(1),
        M,
        N,
        BLOCK_SIZE=block_size,
        EPS=EPS,
        FP8_MAX=fp8_max,
    )
    return y, s


def run(x):
    """x's blocks of 128 x 128 in fp8 (column major) and their reciprocal scales."""
    return triton_fp8_blockwise_weight_quant_rhs(x)
