"""FBGEMM's ``triton_quantize_fp8_row`` (the row-wise fp8 quantization torchao and fbgemm_gpu's fp8 GEMMs feed on):
one program a row, a first pass for the row's absmax in ``BLOCK_SIZE`` steps, the scale ``MAX_FP8 / max(absmax,
EPS)`` and its reciprocal stored, then a second pass storing ``clamp(a * scale, -MAX_FP8, MAX_FP8)`` into an
``float8_e4m3fn`` output (the store converts). ``@triton.autotune`` of five ``BLOCK_SIZE`` configs, 512 to 8192,
keyed on ``N``; the fp8 type, its largest value and the epsilon come from ``get_fp8_constants()`` and are passed as
constexprs (``TL_FP8_DTYPE=tl_dtype``, ``MAX_FP8``, ``EPS``), ``CLAMP_MAX=scale_ub is not None``."""

from typing import Optional, Tuple

import torch
import triton
import triton.language as tl
from triton import Config


def get_fp8_constants() -> Tuple[torch.dtype, tl.dtype, float, float]:
    if torch.version.hip is not None:
        pt_fp8_dtype = torch.float8_e4m3fnuz
        tl_fp8_dtype = tl.float8e4b8
    else:
        pt_fp8_dtype = torch.float8_e4m3fn
        tl_fp8_dtype = tl.float8e4nv
    return pt_fp8_dtype, tl_fp8_dtype, torch.finfo(pt_fp8_dtype).max, 1e-12


@triton.autotune(
    configs=[
        Config({"BLOCK_SIZE": 512}),
        Config({"BLOCK_SIZE": 1024}),
        Config({"BLOCK_SIZE": 2048}),
        Config({"BLOCK_SIZE": 4096}),
        Config({"BLOCK_SIZE": 8192}),
    ],
    key=["N"],
)
@triton.jit
def _kernel_quantize_fp8_row(
    A,
    A_scale,
    A_fp8,
    scale_ub,
    M,
    N,
    stride_am,
    stride_an,
    stride_om,
    stride_on,
    TL_FP8_DTYPE: tl.constexpr,
    MAX_FP8: tl.constexpr,
    EPS: tl.constexpr,
    CLAMP_MAX: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
) -> None:
    pid = tl.program_id(0)
    n_offset = tl.arange(0, BLOCK_SIZE)

    cur_max = 0.0
    for _k in range(0, tl.cdiv(N, BLOCK_SIZE)):
        a = tl.load(A + pid * stride_am + n_offset * stride_an, mask=n_offset < N, other=0.0)
        tile_max = tl.max(tl.abs(a))
        cur_max = tl.maximum(tile_max, cur_max)
        n_offset += BLOCK_SIZE

    if CLAMP_MAX:
        ub = tl.load(scale_ub)
        cur_max = tl.clamp(cur_max, EPS, ub)
    else:
        cur_max = tl.maximum(cur_max, EPS)
    a_scale = MAX_FP8 / cur_max
    tl.store(A_scale + pid, 1.0 / a_scale)
    n_offset = tl.arange(0, BLOCK_SIZE)
    for _k in range(0, tl.cdiv(N, BLOCK_SIZE)):
        a = tl.load(A + pid * stride_am + n_offset * stride_an, mask=n_offset < N, other=0.0)
        a_fp8 = a * a_scale
        a_fp8 = tl.clamp(a_fp8, -MAX_FP8, MAX_FP8)
        a_fp8.to(TL_FP8_DTYPE)
        tl.store(A_fp8 + pid * stride_om + n_offset * stride_on, a_fp8, mask=n_offset < N)
        n_offset += BLOCK_SIZE


def triton_quantize_fp8_row(a: torch.Tensor, scale_ub: Optional[torch.Tensor] = None):
    a_shape = a.shape
    a = a.reshape(-1, a.size(-1))
    pt_dtype, tl_dtype, max_fp8, eps = get_fp8_constants()

    num_rows = a.shape[0]
    a_scale = torch.empty((num_rows), dtype=torch.float32, device=a.device)
    a_fp8 = torch.empty((a.shape[0], a.shape[1]), device=a.device, dtype=pt_dtype)

    grid = (num_rows,)
    _kernel_quantize_fp8_row[grid](
        a,
        a_scale,
        a_fp8,
        scale_ub,
        a.shape[0],
        a.shape[1],
        a.stride(0),
        a.stride(1),
        a_fp8.stride(0),
        a_fp8.stride(1),
        TL_FP8_DTYPE=tl_dtype,
        MAX_FP8=max_fp8,
        EPS=eps,
        CLAMP_MAX=scale_ub is not None,
    )

    return a_fp8.view(a_shape), a_scale.view(a_shape[:-1])


def run(a):
    return triton_quantize_fp8_row(a)
