"""torchao's MX fp8 dequantization along dim 0 (``triton_mxfp8_dequant_dim0``): e4m3 values times one e8m0 scale
(a biased power-of-two exponent, 255 is NaN) every ``SCALE_BLOCK_SIZE = 32`` values of a row. The tiles come from
``@triton.autotune`` over a helper that builds its list with three nested loops and ``results.append(config)``
(``ROW_TILE_SIZE`` x ``COL_TILE_SIZE`` x ``num_warps`` x ``num_stages``; two of torchao's sizes each here), keyed on
``["input_num_cols", "SCALE_BLOCK_SIZE"]``; the kernel derives ``SCALE_BLOCKS_PER_COL_TILE: tl.constexpr =
COL_TILE_SIZE // SCALE_BLOCK_SIZE`` in its body and reshapes its tile by it; ``out_dtype`` a ``tl`` dtype chosen by
a conditional expression and passed by keyword; grid ``lambda META`` of two axes."""

import torch
import triton
import triton.language as tl


def _get_mxfp8_quant_autotune_configs():
    # the sizes were picked by a sweep over a few shapes; the sweep can be widened later
    results = []
    for ROW_TILE_SIZE in (32, 64):
        for COL_TILE_SIZE in (64, 128):
            for num_warps in (4, 8):
                for num_stages in (2, 3):
                    config = triton.Config(
                        {
                            "ROW_TILE_SIZE": ROW_TILE_SIZE,
                            "COL_TILE_SIZE": COL_TILE_SIZE,
                        },
                        num_warps=num_warps,
                        num_stages=num_stages,
                    )
                    results.append(config)
    return results


@triton.jit
def _e8m0_to_fp32(scale_e8m0):
    e8m0_nan_val = 255
    e8m0_exponent_bias = 127
    s_offset = scale_e8m0.to(tl.int16) - e8m0_exponent_bias
    s_fp = tl.exp2(s_offset.to(tl.float32))
    s_fp = tl.where(scale_e8m0 != e8m0_nan_val, s_fp, float("nan"))
    return s_fp.to(tl.float32)


@triton.autotune(
    configs=_get_mxfp8_quant_autotune_configs(),
    key=["input_num_cols", "SCALE_BLOCK_SIZE"],
)
@triton.jit
def _dequant_mxfp8_kernel(
    e4m3_data,
    e8m0_scales,
    out_buffer,
    input_num_rows,
    input_num_cols,
    scale_num_rows,
    scale_num_cols,
    out_dtype: tl.constexpr,
    SCALE_BLOCK_SIZE: tl.constexpr,
    ROW_TILE_SIZE: tl.constexpr,
    COL_TILE_SIZE: tl.constexpr,
):
    pid_row = tl.program_id(0)
    pid_col = tl.program_id(1)
    SCALE_BLOCKS_PER_COL_TILE: tl.constexpr = COL_TILE_SIZE // SCALE_BLOCK_SIZE

    row_offs = pid_row * ROW_TILE_SIZE + tl.arange(0, ROW_TILE_SIZE)
    col_offs = pid_col * COL_TILE_SIZE + tl.arange(0, COL_TILE_SIZE)
    block_offs = row_offs[:, None] * input_num_cols + col_offs[None, :]
    mask = (row_offs[:, None] < input_num_rows) & (col_offs[None, :] < input_num_cols)
    e4m3_data_block = tl.load(e4m3_data + block_offs, mask=mask)

    scale_col_offs = pid_col * SCALE_BLOCKS_PER_COL_TILE + tl.arange(0, SCALE_BLOCKS_PER_COL_TILE)
    scale_block_offs = row_offs[:, None] * scale_num_cols + scale_col_offs[None, :]
    scale_mask = (row_offs[:, None] < scale_num_rows) & (scale_col_offs[None, :] < scale_num_cols)
    e8m0_scale_block = tl.load(e8m0_scales + scale_block_offs, mask=scale_mask)

    e4m3_data_block_r = e4m3_data_block.reshape(ROW_TILE_SIZE * SCALE_BLOCKS_PER_COL_TILE, SCALE_BLOCK_SIZE)
    e8m0_scale_block_r = e8m0_scale_block.reshape(ROW_TILE_SIZE * SCALE_BLOCKS_PER_COL_TILE, 1)
    fp32_scale = _e8m0_to_fp32(e8m0_scale_block_r)
    data_hp = e4m3_data_block_r.to(tl.float32) * fp32_scale

    out_buffer_block = data_hp.to(out_dtype)
    out_buffer_block = out_buffer_block.reshape(ROW_TILE_SIZE, COL_TILE_SIZE)
    tl.store(out_buffer + block_offs, out_buffer_block, mask=mask)


def triton_mxfp8_dequant_dim0(e4m3_data, e8m0_scales, out_dtype, scale_block_size=32):
    assert scale_block_size == 32, "scale_block_size must be 32 for now"
    assert out_dtype in (torch.bfloat16, torch.float32), "out_dtype must be bf16 or fp32"
    orig_shape = e4m3_data.shape
    e4m3_data = e4m3_data.reshape(-1, orig_shape[-1])
    out_buffer = torch.empty_like(e4m3_data, dtype=out_dtype)
    out_dtype_tl = tl.bfloat16 if out_dtype == torch.bfloat16 else tl.float32

    grid = lambda META: (  # noqa: E731
        triton.cdiv(e4m3_data.shape[0], META["ROW_TILE_SIZE"]),
        triton.cdiv(e4m3_data.shape[1], META["COL_TILE_SIZE"]),
    )
    _dequant_mxfp8_kernel[grid](
        e4m3_data,
        e8m0_scales.to(torch.uint8),
        out_buffer,
        e4m3_data.size(0),
        e4m3_data.size(1),
        e8m0_scales.size(0),
        e8m0_scales.size(1),
        out_dtype=out_dtype_tl,
        SCALE_BLOCK_SIZE=scale_block_size,
    )
    return out_buffer.reshape(orig_shape)


def run(data, scales):
    return triton_mxfp8_dequant_dim0(data, scales, torch.float32)
