"""SGLang's ``per_token_group_quant_8bit`` with column-major scales (the layout DeepGEMM reads): one program a group
of ``group_size`` values of a token, its absmax / max_8bit the group's scale, the values divided, clamped and
stored as fp8; the scales written ``x_s.stride(1)`` apart through a permuted ``torch.empty``. ``M = x.numel() //
group_size`` programs, ``N = group_size``; ``BLOCK = triton.next_power_of_2(N)`` covers the group, ``num_warps =
min(max(BLOCK // 256, 1), 8)`` ("heuristics for number of warps"), ``num_stages = 1``; ``SCALE_UE8M0`` a constexpr
passed by keyword after the launch options. The group size is the checkpoint's block (128 in DeepSeek-V3), handed in
as a 0-d tensor here so the entries can differ."""

import torch
import triton
import triton.language as tl

fp8_type_ = torch.float8_e4m3fn


@triton.jit
def _per_token_group_quant_8bit_colmajor(
    # Pointers to inputs and output
    y_ptr,
    y_q_ptr,
    y_s_ptr,
    group_size,
    # Num columns of y
    y_num_columns,
    # Stride from one column to the next of y_s
    y_s_col_stride,
    # Avoid to divide zero
    eps,
    # Information for 8bit data type (int8 or fp8_type_)
    min_8bit,
    max_8bit,
    # Meta-parameters
    BLOCK: tl.constexpr,
    SCALE_UE8M0: tl.constexpr,
):
    g_id = tl.program_id(0)
    y_ptr += g_id.to(tl.int64) * group_size
    y_q_ptr += g_id.to(tl.int64) * group_size

    # Convert g_id the flattened block coordinate to 2D so we can index into the output y_scales matrix
    blocks_per_row = y_num_columns // group_size
    scale_col = g_id % blocks_per_row
    scale_row = g_id // blocks_per_row
    y_s_ptr += scale_col * y_s_col_stride + scale_row

    cols = tl.arange(0, BLOCK)
    mask = cols < group_size

    y = tl.load(y_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    # Quant
    _absmax = tl.maximum(tl.max(tl.abs(y)), eps)
    y_s = _absmax / max_8bit
    if SCALE_UE8M0:
        y_s = tl.exp2(tl.ceil(tl.log2(tl.abs(y_s))))
    y_q = tl.clamp(y / y_s, min_8bit, max_8bit).to(y_q_ptr.dtype.element_ty)

    tl.store(y_q_ptr + cols, y_q, mask=mask)
    tl.store(y_s_ptr, y_s)


def per_token_group_quant_8bit(
    x: torch.Tensor,
    group_size: int,
    dst_dtype: torch.dtype,
    eps: float = 1e-10,
    column_major_scales: bool = False,
    scale_ue8m0: bool = False,
):
    assert x.shape[-1] % group_size == 0, "the last dimension of `x` cannot be divisible by `group_size`"
    assert x.is_contiguous(), "`x` is not contiguous"

    if dst_dtype == torch.int8:
        iinfo = torch.iinfo(dst_dtype)
        max_8bit = iinfo.max
        min_8bit = iinfo.min
    else:
        finfo = torch.finfo(dst_dtype)
        max_8bit = finfo.max
        min_8bit = finfo.min

    x_q = torch.empty_like(x, device=x.device, dtype=dst_dtype)
    M = x.numel() // group_size
    N = group_size
    assert column_major_scales
    x_s = torch.empty(
        (x.shape[-1] // group_size,) + x.shape[:-1],
        device=x.device,
        dtype=torch.float32,
    ).permute(-1, -2)

    BLOCK = triton.next_power_of_2(N)
    # heuristics for number of warps
    num_warps = min(max(BLOCK // 256, 1), 8)
    num_stages = 1
    _per_token_group_quant_8bit_colmajor[(M,)](
        x,
        x_q,
        x_s,
        group_size,
        x.shape[1],
        x_s.stride(1),
        eps,
        min_8bit,
        max_8bit,
        BLOCK=BLOCK,
        num_warps=num_warps,
        num_stages=num_stages,
        SCALE_UE8M0=scale_ue8m0,
    )
    return x_q, x_s


def run(x, group):
    return per_token_group_quant_8bit(x, int(group), fp8_type_, column_major_scales=True)
