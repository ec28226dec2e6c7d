"""Unsloth's exact GEGLU backward (``geglu_exact_backward_kernel``, its fused MLP's backward): three tensors
rewritten in place by one launch (the upstream gradient ``DW`` becomes ``h = gelu(e) * g``, ``e`` becomes ``df =
DW * gelu(e)``, ``g`` becomes ``de``), returned as ``DW, e, g``; ``tl.math.erf(tl.math.rsqrt(2.0) * e)`` (an rsqrt
of a Python float); ``BLOCK_SIZE = 1024`` a module-level constant passed by keyword, ``LONG_INDEXING`` a
constexpr flag decided from the element count against a module-level ``INT32_SAFETY_BUFFER``; a grid ``lambda
meta``; the launch inside ``with torch_gpu_device(e.device):`` (a helper of the file returning the device
context)."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024
INT32_SAFETY_BUFFER = 2**31 - 2**20


def torch_gpu_device(device):
    return torch.cuda.device(device)


@triton.jit
def _exact_backward_kernel(
    DW,
    e,
    g,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    LONG_INDEXING: tl.constexpr,
):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    DW_row = tl.load(DW + offsets, mask=mask, other=0)
    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)

    # f = 1/2 * e * (1 + erf(1/sqrt(2) * e))
    f_partial_row = 0.5 * (tl.math.erf(tl.math.rsqrt(2.0) * e_row) + 1.0)
    f_row = f_partial_row * e_row
    f_row = f_row.to(DW_row.dtype)
    h_row = f_row * g_row
    df_row = DW_row * f_row
    dg_row = DW_row * g_row
    # d/de gelu(e) = 1/2 (1 + erf(e / sqrt(2))) + e * exp(-e^2 / 2) / sqrt(2 pi)
    t = 0.3989422804014327
    df_de = f_partial_row + t * e_row * tl.exp(-0.5 * e_row * e_row)
    de_row = dg_row.to(tl.float32) * df_de
    de_row = de_row.to(DW_row.dtype)

    tl.store(DW + offsets, h_row, mask=mask)
    tl.store(e + offsets, df_row, mask=mask)
    tl.store(g + offsets, de_row, mask=mask)


def geglu_exact_backward_kernel(DW, e, g):
    batch_seq_len, hd = e.shape
    n_elements = e.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    with torch_gpu_device(e.device):
        _exact_backward_kernel[grid](
            DW,
            e,
            g,
            n_elements,
            BLOCK_SIZE=BLOCK_SIZE,
            LONG_INDEXING=0 if n_elements <= INT32_SAFETY_BUFFER else 1,
        )
    return DW, e, g


def run(DW, e, g):
    return geglu_exact_backward_kernel(DW, e, g)
