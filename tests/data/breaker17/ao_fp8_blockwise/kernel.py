"""torchao's blockwise fp8 activation quantization, the left operand's form
(torchao/prototype/blockwise_fp8_training/kernels.py, ``triton_fp8_blockwise_act_quant_lhs``): each row's blocks of
``block_size`` (128) values scaled so their largest magnitude is e4m3's 448; ``@triton.autotune`` of a comprehension
over ``NUM_GROUPS`` (rows a program takes) x ``num_warps`` x ``num_stages`` keyed on ``["K"]``; the grid ``lambda
meta: (cdiv(M, meta["NUM_GROUPS"]), cdiv(K, meta["BLOCK_SIZE"]))`` of an autotuned name and a host-passed one; the
scales written COLUMN-MAJOR into an ``as_strided`` view (``torch._scaled_mm``'s layout); ``EPS`` a module
constant; bf16 in, fp8 out, the amax widened to float64."""

import torch
import triton
import triton.language as tl

EPS = 1e-12

fp8_blockwise_act_quant_lhs_kernel_configs = [
    triton.Config({"NUM_GROUPS": NUM_GROUPS}, num_warps=warps, num_stages=stages)
    for NUM_GROUPS in [2, 16, 32, 64, 128]
    for warps in [2, 4, 8]
    for stages in [2, 4, 6]
]


@triton.autotune(configs=fp8_blockwise_act_quant_lhs_kernel_configs, key=["K"])
@triton.jit
def triton_fp8_blockwise_act_quant_lhs_kernel(
    x_ptr,
    x_stride_dim_0,
    x_stride_dim_1,
    y_ptr,
    y_stride_dim_0,
    y_stride_dim_1,
    s_ptr,
    s_stride_dim_0,
    s_stride_dim_1,
    M,
    K: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    NUM_GROUPS: tl.constexpr,
    EPS: tl.constexpr,
):
    # Each program quantizes NUM_GROUPS rows of one block of BLOCK_SIZE columns: a 1 x BLOCK_SIZE scale a row
    pid_m = tl.program_id(axis=0)
    pid_k = tl.program_id(axis=1)
    m_offs = pid_m * NUM_GROUPS + tl.arange(0, NUM_GROUPS)
    k_offs = pid_k * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x_offs = m_offs[:, None] * x_stride_dim_0 + k_offs[None, :] * x_stride_dim_1
    x_mask = (m_offs[:, None] < M) & (k_offs[None, :] < K)
    x = tl.load(x_ptr + x_offs, mask=x_mask)

    # float64 for the amax's reciprocal, as torch's reference does
    amax = tl.clamp(tl.max(tl.abs(x), axis=1), min=EPS, max=float("inf")).to(tl.float64)
    scale = (448.0 / amax).to(tl.float32)
    y = x * scale[:, None]
    y = y.to(y_ptr.dtype.element_ty)

    y_offs = m_offs[:, None] * y_stride_dim_0 + k_offs[None, :] * y_stride_dim_1
    y_mask = (m_offs[:, None] < M) & (k_offs[None, :] < K)
    tl.store(y_ptr + y_offs, y, mask=y_mask)

    # the reciprocal scale, column-major
    s_offs = m_offs[:] * s_stride_dim_0 + pid_k * s_stride_dim_1
    s_mask = m_offs < M
    tl.store(s_ptr + s_offs, tl.div_rn(1.0, scale), mask=s_mask)


def triton_fp8_blockwise_act_quant_lhs(x, block_size=128, dtype=torch.float8_e4m3fn):
    assert x.is_contiguous(), "Input tensor must be contiguous"
    assert x.size(-1) % block_size == 0, f"Last dimension size must be divisible by block_size={block_size}"
    assert dtype in [torch.float8_e4m3fn], "dtype must be torch.float8_e4m3fn"
    M, K = x.size()
    y = torch.empty_like(x, dtype=dtype)
    # Write scales to column-major format to align with torch._scaled_mm requirements.
    s = x.new_empty(M, K // block_size, dtype=torch.float32).as_strided((M, K // block_size), (1, M))
    grid = lambda meta: (triton.cdiv(M, meta["NUM_GROUPS"]), triton.cdiv(K, meta["BLOCK_SIZE"]))  # noqa: E731
    triton_fp8_blockwise_act_quant_lhs_kernel[grid](
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
        K=K,
        BLOCK_SIZE=block_size,
        EPS=EPS,
    )
    return y, s


def run(x):
    return triton_fp8_blockwise_act_quant_lhs(x)
