"""torchao's fp8 row-wise cast of a 3-D right operand, transposed (``torchao/prototype/moe_training/kernels/
float8_rowwise.py``, ``triton_fp8_rowwise_3d_transpose_rhs``, Meta, BSD-3-Clause; the experts' weights of a scaled
grouped GEMM in MoE training): for ``(E, K, N)`` weights, one e4m3 scale per (expert, k) row (``fp8 max / amax`` over
N) and the weights cast to fp8 and written TRANSPOSED, ``(E, N, K)`` in a column-major layout (``torch.empty(...)
.as_strided((e, n, k), (n * k, 1, n))``). TWO ``@triton.jit`` kernels launched from one op with ONE grid ``lambda
meta`` of three axes: the first reduces each ``(BLOCK_SIZE_K, BLOCK_SIZE_N)`` tile to per-row scales and combines
the tiles by ``tl.atomic_min`` into a buffer filled with ``inf``; the second reloads each tile, scales it, clamps it,
casts it and stores it transposed (``.trans(1, 0)``). Each kernel under ``@triton.autotune`` of the SAME
one-config module-level list ``atomic_kernel_configs_2D`` (``BLOCK_SIZE_N`` / ``BLOCK_SIZE_K`` 128), the first keyed
on ``["K", "N"]``, the second on ``["num_elements"]``, a name that is no parameter of the kernel (Triton's autotuner
drops a key it cannot find); the expert strides annotated ``tl.int64`` (the others int32); ``tl.constexpr(
torch.version.hip is not None)`` inside the kernel; a ``torch.library.custom_op`` with a ``register_fake`` (written to
run under ``torch.compile``), the module's kernels inside ``if has_triton():``. Kept as written, cut to this op; its
comments reworded; one change: ``if has_triton():`` (False where torch sees no GPU) also holds under Triton's
interpreter."""

import os
from typing import Tuple

import torch
from torch.utils._triton import has_triton

if has_triton() or os.environ.get("TRITON_INTERPRET") == "1":
    import triton
    import triton.language as tl

    EPS = 1e-12

    FP8_DTYPE_MAP = {
        torch.int8: tl.int8,
        torch.int16: tl.int16,
        torch.int32: tl.int32,
        torch.int64: tl.int64,
        torch.float8_e4m3fn: tl.float8e4nv,
        torch.float8_e4m3fnuz: tl.float8e4b8,
        torch.float8_e5m2: tl.float8e5,
        torch.float8_e5m2fnuz: tl.float8e5b16,
        torch.float16: tl.float16,
        torch.bfloat16: tl.bfloat16,
        torch.float32: tl.float32,
        torch.float64: tl.float64,
    }

    atomic_kernel_configs_2D = [
        triton.Config(
            {"BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128},
            num_warps=4,
            num_stages=4,
        )
    ]

    @torch.library.custom_op(
        "torchao::triton_fp8_rowwise_transpose_rhs", mutates_args={}
    )
    def triton_fp8_rowwise_3d_transpose_rhs(
        hp_tensor: torch.Tensor,  # (E, K, N)
        output_dtype: torch.dtype = torch.float8_e4m3fn,
        round_scales_to_power_of_2: bool = False,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        assert hp_tensor.ndim == 3, "input tensor must be 3D"

        tl_input_dtype = FP8_DTYPE_MAP[hp_tensor.dtype]
        tl_output_dtype = FP8_DTYPE_MAP[output_dtype]

        fp8_dtype_min = torch.finfo(output_dtype).min
        fp8_dtype_max = torch.finfo(output_dtype).max

        e, k, n = hp_tensor.shape

        # allocate on-device buffers for output and scales
        # output shape = input.transpose(-2, -1).shape = (E, N, K) in column major layout
        output_buffer = torch.empty(
            (e, n, k), dtype=output_dtype, device=hp_tensor.device
        ).as_strided((e, n, k), (n * k, 1, n))

        scales_buffer = torch.full(
            (e, k), float("inf"), dtype=torch.float32, device=hp_tensor.device
        )

        # parallelize across experts, and for each expert, parallelize across rows and cols
        grid = lambda meta: (
            e,
            triton.cdiv(k, meta["BLOCK_SIZE_K"]),
            triton.cdiv(n, meta["BLOCK_SIZE_N"]),
        )

        # compute scales
        _triton_fp8_rowwise_3d_transpose_scales_rhs_kernel[grid](
            hp_tensor,
            hp_tensor.stride(0),
            hp_tensor.stride(1),
            hp_tensor.stride(2),
            scales_buffer,
            scales_buffer.stride(0),
            scales_buffer.stride(1),
            e,
            n,
            k,
            fp8_dtype_min,
            fp8_dtype_max,
            tl_input_dtype,
            round_scales_to_power_of_2=round_scales_to_power_of_2,
            EPS=EPS,
        )

        # perform casting
        _triton_fp8_rowwise_3d_transpose_cast_rhs_kernel[grid](
            hp_tensor,
            hp_tensor.stride(0),
            hp_tensor.stride(1),
            hp_tensor.stride(2),
            output_buffer,
            output_buffer.stride(0),
            output_buffer.stride(1),
            output_buffer.stride(2),
            scales_buffer,
            scales_buffer.stride(0),
            scales_buffer.stride(1),
            e,
            n,
            k,
            fp8_dtype_min,
            fp8_dtype_max,
            tl_input_dtype,
            tl_output_dtype,
        )
        return output_buffer, scales_buffer

    @triton_fp8_rowwise_3d_transpose_rhs.register_fake
    def _fake_triton_fp8_rowwise_3d_transpose_rhs(
        hp_tensor: torch.Tensor,  # (E, K, N)
        output_dtype: torch.dtype = torch.float8_e4m3fn,
        round_scales_to_power_of_2: bool = False,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        assert hp_tensor.ndim == 3, "input tensor must be 3D"
        e, k, n = hp_tensor.shape
        output_buffer = torch.empty(
            (e, n, k), dtype=output_dtype, device=hp_tensor.device
        ).as_strided((e, n, k), (n * k, 1, n))

        scales_buffer = torch.empty(
            (e, k), dtype=torch.float32, device=hp_tensor.device
        )
        return output_buffer, scales_buffer

    @triton.autotune(configs=atomic_kernel_configs_2D, key=["K", "N"])
    @triton.jit
    def _triton_fp8_rowwise_3d_transpose_scales_rhs_kernel(
        input_ptr,
        stride_input_dim0: tl.int64,
        stride_input_dim1,
        stride_input_dim2,
        scales_ptr,
        stride_scales_dim0: int,
        stride_scales_dim1,
        E: int,
        N: int,
        K: int,
        fp8_dtype_min: tl.constexpr,
        fp8_dtype_max: tl.constexpr,
        input_dtype: tl.constexpr,
        round_scales_to_power_of_2: tl.constexpr,
        BLOCK_SIZE_N: tl.constexpr,
        BLOCK_SIZE_K: tl.constexpr,
        EPS: tl.constexpr,
    ):
        # parallelize across experts, rows, and cols
        expert_idx = tl.program_id(0)
        k_block_idx = tl.program_id(1)
        n_block_idx = tl.program_id(2)

        # compute offsets for each dimension
        k_offs = k_block_idx * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        n_offs = n_block_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)

        # load block of input data, shape (K, N)
        input_offs = (
            expert_idx * stride_input_dim0
            + k_offs[:, None] * stride_input_dim1
            + (n_offs[None, :] * stride_input_dim2)
        )
        input_mask = (k_offs[:, None] < K) & (n_offs[None, :] < N)
        input_data = tl.load(input_ptr + input_offs, mask=input_mask, other=0.0)

        # torch would transpose to (E, N, K) and take the amax along N for column-wise scales of the grouped GEMM's
        # right operand; here the (K, N) tile's amax along N is the same scale for its K rows, and the tiles along N
        # meet through tl.atomic_min. The cast kernel then scales the same tile and writes it transposed, (N, K).
        amaxes = tl.max(tl.abs(input_data), axis=1).to(tl.float64)  # (K,)
        scales = (fp8_dtype_max / tl.clamp(amaxes, min=EPS, max=float("inf"))).to(
            tl.float32
        )
        if round_scales_to_power_of_2:
            scales = tl.exp2(tl.floor(tl.log2(scales)))

        # compute global scales using atomics with local scales - shape (1, K)
        scales_offs = (
            expert_idx[:, None] * stride_scales_dim0
            + k_offs[None, :] * stride_scales_dim1
        )
        scales_mask = k_offs[None, :] < K
        # AMD GPUs need relaxed semantics for better performance
        if tl.constexpr(torch.version.hip is not None):
            tl.atomic_min(
                scales_ptr + scales_offs,
                scales[None, :],
                mask=scales_mask,
                sem="relaxed",
            )
        else:
            tl.atomic_min(scales_ptr + scales_offs, scales[None, :], mask=scales_mask)

    @triton.autotune(configs=atomic_kernel_configs_2D, key=["num_elements"])
    @triton.jit
    def _triton_fp8_rowwise_3d_transpose_cast_rhs_kernel(
        input_ptr,
        stride_input_dim0: tl.int64,
        stride_input_dim1,
        stride_input_dim2,
        output_ptr,
        stride_output_dim0: tl.int64,
        stride_output_dim1,
        stride_output_dim2,
        scales_ptr,
        stride_scales_dim0: int,
        stride_scales_dim1,
        E: int,
        N: int,
        K: int,
        fp8_dtype_min: tl.constexpr,
        fp8_dtype_max: tl.constexpr,
        input_dtype: tl.constexpr,
        output_dtype: tl.constexpr,
        BLOCK_SIZE_N: tl.constexpr,
        BLOCK_SIZE_K: tl.constexpr,
    ):
        # parallelize across experts, rows, and cols
        expert_idx = tl.program_id(0)
        k_block_idx = tl.program_id(1)
        n_block_idx = tl.program_id(2)

        # compute offsets for each dimension
        k_offs = k_block_idx * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        n_offs = n_block_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)

        # load block of input data for this expert - shape (K, N)
        input_offs = (
            expert_idx * stride_input_dim0
            + k_offs[:, None] * stride_input_dim1
            + (n_offs[None, :] * stride_input_dim2)
        )
        input_mask = (k_offs[:, None] < K) & (n_offs[None, :] < N)
        input_data = tl.load(input_ptr + input_offs, mask=input_mask, other=0.0)
        input_data = input_data.trans(1, 0)  # (K, N) -> (N, K)

        # load global scales for this block of the given expert - shape (1, K)
        scales_offs = (
            expert_idx[:, None] * stride_scales_dim0
            + k_offs[None, :] * stride_scales_dim1
        )
        scales_mask = k_offs[None, :] < K
        scales = tl.load(scales_ptr + scales_offs, mask=scales_mask, other=0.0)

        # transpose data and apply scales - shape (N,K) * (1,K) = (N,K)
        output_data = tl.clamp(
            input_data * scales, min=fp8_dtype_min, max=fp8_dtype_max
        ).to(output_dtype)

        # store transpose and store output data - shape (N, K)
        output_offs = (
            expert_idx * stride_output_dim0
            + n_offs[:, None] * stride_output_dim1
            + (k_offs[None, :] * stride_output_dim2)
        )
        output_mask = (n_offs[:, None] < N) & (k_offs[None, :] < K)
        tl.store(output_ptr + output_offs, output_data, mask=output_mask)


def run(w):
    return triton_fp8_rowwise_3d_transpose_rhs(w, torch.float8_e4m3fn, False)
