"""Unsloth's SwiGLU (unsloth/kernels/swiglu.py) used by a ``torch.autograd.Function``: the forward ``_fg_kernel``
(``h = silu(e) * g``) and the backward ``_DWf_DW_dfg_kernel`` (which overwrites its three inputs IN PLACE with
``h``, ``df`` and ``de``) launched from one file; ``BLOCK_SIZE = 1024`` a module constant read through a grid
``lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)``; ``LONG_INDEXING`` a constexpr the host sets from the
element count; bf16 tensors in and out."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024
INT32_SAFETY_BUFFER = 2**31 - 1 - BLOCK_SIZE * 4


@triton.jit
def _fg_kernel(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)

    # silu in fp32, back to the input's type before the gate multiplies
    f_row = e_row * tl.sigmoid(e_row)
    f_row = f_row.to(g_row.dtype)
    h_row = f_row * g_row

    tl.store(h + offsets, h_row, mask=mask)


def swiglu_fg_kernel(e, g):
    batch, seq_len, hd = e.shape
    n_elements = e.numel()
    h = torch.empty((batch, seq_len, hd), dtype=e.dtype, device=e.device)
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _fg_kernel[grid](
        e, g, h, n_elements, BLOCK_SIZE=BLOCK_SIZE, LONG_INDEXING=0 if n_elements <= INT32_SAFETY_BUFFER else 1
    )
    return h


@triton.jit
def _DWf_DW_dfg_kernel(DW, e, g, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
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

    se_row = tl.sigmoid(e_row)
    f_row = se_row * e_row
    f_row = f_row.to(DW_row.dtype)
    h_row = f_row * g_row
    df_row = DW_row * f_row
    dg_row = DW_row * g_row
    de_row = dg_row.to(tl.float32) * se_row * (1.0 + e_row * (1.0 - se_row))
    de_row = de_row.to(DW_row.dtype)

    # the three inputs are overwritten: h, the gate's gradient, the activation's gradient
    tl.store(DW + offsets, h_row, mask=mask)
    tl.store(e + offsets, df_row, mask=mask)
    tl.store(g + offsets, de_row, mask=mask)


def swiglu_DWf_DW_dfg_kernel(DW, e, g):
    batch_seq_len, hd = e.shape
    n_elements = e.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _DWf_DW_dfg_kernel[grid](
        DW, e, g, n_elements, BLOCK_SIZE=BLOCK_SIZE, LONG_INDEXING=0 if n_elements <= INT32_SAFETY_BUFFER else 1
    )
    return DW, e, g


class _SwiGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, e, g):
        ctx.save_for_backward(e, g)
        return swiglu_fg_kernel(e.detach(), g.detach())

    @staticmethod
    def backward(ctx, dh):
        e, g = ctx.saved_tensors
        hd = e.shape[-1]
        DW = dh.reshape(-1, hd).contiguous().clone()
        _, df, de = swiglu_DWf_DW_dfg_kernel(DW, e.reshape(-1, hd).clone(), g.reshape(-1, hd).clone())
        return de.view_as(e), df.view_as(g)


def run(e, g, dh):
    e = e.detach().requires_grad_(True)
    g = g.detach().requires_grad_(True)
    h = _SwiGLU.apply(e, g)
    de, dg = torch.autograd.grad(h, (e, g), dh)
    return h.detach(), de, dg
