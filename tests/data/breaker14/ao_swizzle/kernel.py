"""torchao's ``triton_mx_block_rearrange``: a row-major tensor of e8m0 scales (one byte each) rearranged into the
block-scaled layout cuBLAS reads (128 x 4 tiles, each stored as 32 x 16: row ``r`` of a tile goes to ``(r % 32) *
16 + (r // 32) * 4``). The tile is the layout's: ``BLOCK_ROWS, BLOCK_COLS = 128, 4`` a tuple-assigned local, passed
as ``BLOCK_ROWS=BLOCK_ROWS, BLOCK_COLS=BLOCK_COLS`` and read by the output's block stride and a grid ``lambda META``
that never reads META; the padding sizes written with the literals 128 and 4 beside it (``triton.cdiv(rows, 128)``);
the output a ``new_empty`` of the padded size, stored without a mask (the loads' ``other=0.0`` fills the pad); the
launch through ``torch.library.wrap_triton`` in a ``torch.library.custom_op``."""

import torch
import triton
import triton.language as tl
from torch.library import wrap_triton


@triton.jit
def triton_scale_swizzle(
    scale_ptr,
    scale_rows,
    scale_cols,
    output_ptr,
    input_row_stride,
    input_col_stride,
    output_block_stride,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_COLS: tl.constexpr,
):
    pid_row = tl.program_id(0)
    pid_col = tl.program_id(1)

    rows = tl.arange(0, BLOCK_ROWS)[:, None]
    cols = tl.arange(0, BLOCK_COLS)[None, :]

    start_row = pid_row * BLOCK_ROWS
    start_col = pid_col * BLOCK_COLS
    global_rows = start_row + rows
    global_cols = start_col + cols

    mask = (global_rows < scale_rows) & (global_cols < scale_cols)

    input_scales = tl.load(
        scale_ptr + global_rows * input_row_stride + global_cols * input_col_stride,
        mask=mask,
        other=0.0,
    )

    r_div_32 = rows // 32
    r_mod_32 = rows % 32

    # to (32, 4, 4), then to the stored (32, 16)
    dest_indices = r_mod_32 * 16 + r_div_32 * 4 + cols

    dest_indices_flat = tl.reshape(dest_indices, (BLOCK_ROWS * BLOCK_COLS))
    scales_flat = tl.reshape(input_scales, (BLOCK_ROWS * BLOCK_COLS))

    LOCAL_NUMEL = BLOCK_ROWS * BLOCK_COLS
    block_offset = pid_col * LOCAL_NUMEL + (pid_row * output_block_stride)

    tl.store(
        output_ptr + block_offset + dest_indices_flat,
        scales_flat,
    )


@torch.library.custom_op("breaker14::mx_block_rearrange", mutates_args=())
def triton_mx_block_rearrange(scale_tensor: torch.Tensor) -> torch.Tensor:
    assert scale_tensor.element_size() == 1, "Expected element size to be 1 byte (8 bits)"

    rows, cols = scale_tensor.shape

    n_row_blocks = triton.cdiv(rows, 128)
    n_col_blocks = triton.cdiv(cols, 4)
    padded_rows = n_row_blocks * 128
    padded_cols = n_col_blocks * 4

    out = scale_tensor.new_empty((padded_rows, padded_cols))

    input_row_stride = scale_tensor.stride()[0]
    input_col_stride = scale_tensor.stride()[1]

    # one layout block a program for now; several a tile may come later
    BLOCK_ROWS, BLOCK_COLS = 128, 4

    output_block_stride = BLOCK_ROWS * BLOCK_COLS * (padded_cols // BLOCK_COLS)

    grid = lambda META: (  # noqa: E731
        triton.cdiv(padded_rows, BLOCK_ROWS),
        triton.cdiv(padded_cols, BLOCK_COLS),
    )

    wrap_triton(triton_scale_swizzle)[grid](
        scale_tensor.view(torch.uint8),
        rows,
        cols,
        out.view(torch.uint8),
        input_row_stride,
        input_col_stride,
        output_block_stride,
        BLOCK_ROWS=BLOCK_ROWS,
        BLOCK_COLS=BLOCK_COLS,
    )

    return out


def run(scales):
    return triton_mx_block_rearrange(scales)
