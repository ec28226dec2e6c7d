"""Liger-Kernel's sparsemax forward (``LigerSparsemaxFunction``): the rows sorted in torch, then one program a row
computing the threshold from the sorted row's cumulative sum (``tl.cumsum``) and the support count; the whole row is
one block (``BLOCK_SIZE, num_warps = calculate_settings(n_cols)``, ``next_power_of_2`` with Liger's warp ladder and
its 65536 cap). ``num_warps`` is also a ``tl.constexpr`` parameter of the kernel, passed by keyword as the launch's
warps (Liger's form); the reduced axis is any ``dim``, moved last by ``x.transpose(dim, -1).contiguous()`` and moved
back on the way out; loads and stores carry ``cache_modifier``."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _sparsemax_forward_kernel(
    x_ptr,
    x_stride_row,
    sorted_x_ptr,
    sorted_x_stride_row,
    o_ptr,
    o_stride_row,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    num_warps: tl.constexpr,
):
    pid_row = tl.program_id(0)
    ptr_x_data_row = x_ptr + pid_row * x_stride_row
    ptr_sorted_x_data_row = sorted_x_ptr + pid_row * sorted_x_stride_row
    ptr_output_row = o_ptr + pid_row * o_stride_row

    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols

    z_sorted_block = tl.load(
        ptr_sorted_x_data_row + offs, mask=mask, other=-float("inf"), cache_modifier=".ca"
    ).to(tl.float32)
    z_valid = tl.where(mask, z_sorted_block, 0.0)
    cssv = tl.cumsum(z_valid, 0)
    r = (offs + 1).to(tl.float32)
    safe_r = tl.where(mask, r, 1.0)
    t_vec = (cssv - 1.0) / safe_r
    support = (z_sorted_block > t_vec) & mask
    k_int = tl.sum(support.to(tl.int32), 0)
    k_clamped_int = tl.maximum(k_int, 1)
    k = k_clamped_int.to(tl.float32)
    s = tl.sum(tl.where(support, z_sorted_block, 0.0), 0)
    tau = (s - 1.0) / k

    x_block = tl.load(ptr_x_data_row + offs, mask=mask, other=0.0, cache_modifier=".ca").to(tl.float32)
    y = tl.maximum(x_block - tau, 0.0)
    tl.store(ptr_output_row + offs, y.to(ptr_output_row.dtype.element_ty), mask=mask, cache_modifier=".cs")


class LigerSparsemaxFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, dim: int):
        if dim < 0:
            dim += x.dim()
        ctx.dim = dim
        x_sw = x.transpose(dim, -1).contiguous()
        n_cols = x_sw.size(-1)
        n_rows = x_sw.numel() // n_cols
        x_flat = x_sw.view(n_rows, n_cols)

        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        out_flat = torch.empty_like(x_flat)
        grid = (n_rows,)
        x_sorted_flat = torch.sort(x_flat.float(), dim=-1, descending=True).values

        _sparsemax_forward_kernel[grid](
            x_flat,
            x_flat.stride(0),
            x_sorted_flat,
            x_sorted_flat.stride(0),
            out_flat,
            out_flat.stride(0),
            n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
        ctx.save_for_backward(out_flat)
        return out_flat.view_as(x_sw).transpose(dim, -1)


def run(x):
    return LigerSparsemaxFunction.apply(x, 1)
