"""torchao's float8nocompile tensorwise cast (``hp_tensor_to_float8_dynamic``, its ATOMIC_MAX algorithm): THREE
kernels sharing the block name ``BLOCK_SIZE``, each ``@triton.autotune(configs=kernel_configs_1D,
key=["num_elements"])`` of one module-level list: the per-block amax folded into a one-element buffer by
``tl.atomic_max`` (the buffer ``torch.zeros``: amax is never negative), the scale from it, then the scaled, clamped
cast to ``float8_e4m3fn``; ``EPS`` and the fp8 bounds passed as constexprs; each grid ``lambda meta`` of
``BLOCK_SIZE``."""

import torch
import triton
import triton.language as tl

EPS = 1e-12
FP8_DTYPE_MAP = {torch.float8_e4m3fn: tl.float8e4nv}

kernel_configs_1D = [
    triton.Config({"BLOCK_SIZE": 128}, num_warps=1),
    triton.Config({"BLOCK_SIZE": 256}, num_warps=2),
    triton.Config({"BLOCK_SIZE": 512}, num_warps=4),
]


@triton.autotune(configs=kernel_configs_1D, key=["num_elements"])
@triton.jit
def _block_amax_atomic(input_ptr, amax_ptr, num_elements, input_dtype: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    block_id = tl.program_id(axis=0)
    block_offs = block_id * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    block_mask = block_offs < num_elements
    vals = tl.load(input_ptr + block_offs, mask=block_mask, other=0.0).to(input_dtype)
    block_amax = tl.max(tl.abs(vals))
    tl.atomic_max(amax_ptr, block_amax)


@triton.jit
def _fp8_scale(amax_ptr, scale_out_ptr, fp8_dtype_max, EPS: tl.constexpr):
    global_amax = tl.load(amax_ptr)
    scale = (fp8_dtype_max / tl.clamp(global_amax, min=EPS, max=float("inf"))).to(tl.float32)
    tl.store(scale_out_ptr, scale)


@triton.autotune(configs=kernel_configs_1D, key=["num_elements"])
@triton.jit
def _to_fp8(
    input_ptr, scale_ptr, out_ptr, num_elements, fp8_dtype_min, fp8_dtype_max,
    input_dtype: tl.constexpr, output_dtype: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    block_id = tl.program_id(axis=0)
    scale = tl.load(scale_ptr)
    block_offs = block_id * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = block_offs < num_elements
    vals = tl.load(input_ptr + block_offs, mask=mask, other=0.0).to(input_dtype)
    fp8_vals = tl.clamp(vals * scale, min=fp8_dtype_min, max=fp8_dtype_max).to(output_dtype)
    tl.store(out_ptr + block_offs, fp8_vals, mask=mask)


def hp_tensor_to_float8_dynamic(hp_tensor, fp8_dtype=torch.float8_e4m3fn):
    assert hp_tensor.is_contiguous(), "tensor must be contiguous"
    num_elements = hp_tensor.numel()
    tl_input_dtype = tl.float32
    tl_output_dtype = FP8_DTYPE_MAP[fp8_dtype]
    fp8_dtype_min = torch.finfo(fp8_dtype).min
    fp8_dtype_max = torch.finfo(fp8_dtype).max

    global_amax = torch.zeros((1,), dtype=torch.float32, device=hp_tensor.device)
    grid = lambda meta: (triton.cdiv(num_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _block_amax_atomic[grid](hp_tensor, global_amax, num_elements, input_dtype=tl_input_dtype)

    scale_out = torch.empty((1,), dtype=torch.float32, device=hp_tensor.device)
    _fp8_scale[(1,)](global_amax, scale_out, fp8_dtype_max, EPS=EPS)

    fp8_output = torch.empty_like(hp_tensor, dtype=fp8_dtype, device=hp_tensor.device)
    _to_fp8[grid](
        hp_tensor, scale_out, fp8_output, num_elements, fp8_dtype_min, fp8_dtype_max,
        input_dtype=tl_input_dtype, output_dtype=tl_output_dtype,
    )
    return fp8_output, scale_out.reciprocal()


def run(x):
    return hp_tensor_to_float8_dynamic(x)
