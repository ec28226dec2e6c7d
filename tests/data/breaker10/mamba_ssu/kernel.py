"""Mamba's ``selective_state_update`` (one decode step of the selective scan): the state ``(batch, dim, dstate)``
is updated in place, ``state = state * exp(A * dt) + B * dt * x``, and ``out = sum(state * C) + x * D``, gated by
``silu(z)``. ``@triton.heuristics`` decide the optional inputs and ``BLOCK_SIZE_DSTATE = next_power_of_2(dstate)``
(the block covers the state); the rows a program are picked by hand from ``dstate`` in a nested conditional of
tuples (the authors: "We don't want autotune since it will overwrite the state"), ``BLOCK_SIZE_M`` passed
positionally, ``num_warps`` by keyword, the launch inside ``with torch.cuda.device(x.device.index):``."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"HAS_DT_BIAS": lambda args: args["dt_bias_ptr"] is not None})
@triton.heuristics({"HAS_D": lambda args: args["D_ptr"] is not None})
@triton.heuristics({"HAS_Z": lambda args: args["z_ptr"] is not None})
@triton.heuristics({"BLOCK_SIZE_DSTATE": lambda args: triton.next_power_of_2(args["dstate"])})
@triton.jit
def _selective_scan_update_kernel(
    state_ptr,
    x_ptr,
    dt_ptr,
    dt_bias_ptr,
    A_ptr,
    B_ptr,
    C_ptr,
    D_ptr,
    z_ptr,
    out_ptr,
    batch,
    dim,
    dstate,
    stride_state_batch,
    stride_state_dim,
    stride_state_dstate,
    stride_x_batch,
    stride_x_dim,
    stride_dt_batch,
    stride_dt_dim,
    stride_dt_bias_dim,
    stride_A_dim,
    stride_A_dstate,
    stride_B_batch,
    stride_B_dstate,
    stride_C_batch,
    stride_C_dstate,
    stride_D_dim,
    stride_z_batch,
    stride_z_dim,
    stride_out_batch,
    stride_out_dim,
    DT_SOFTPLUS: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    HAS_DT_BIAS: tl.constexpr,
    HAS_D: tl.constexpr,
    HAS_Z: tl.constexpr,
    BLOCK_SIZE_DSTATE: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_b = tl.program_id(axis=1)
    state_ptr += pid_b * stride_state_batch
    x_ptr += pid_b * stride_x_batch
    dt_ptr += pid_b * stride_dt_batch
    B_ptr += pid_b * stride_B_batch
    C_ptr += pid_b * stride_C_batch
    if HAS_Z:
        z_ptr += pid_b * stride_z_batch
    out_ptr += pid_b * stride_out_batch

    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.arange(0, BLOCK_SIZE_DSTATE)
    state_ptrs = state_ptr + (offs_m[:, None] * stride_state_dim + offs_n[None, :] * stride_state_dstate)
    row = offs_m < dim
    both = row[:, None] & (offs_n[None, :] < dstate)

    state = tl.load(state_ptrs, mask=both, other=0.0)
    x = tl.load(x_ptr + offs_m * stride_x_dim, mask=row, other=0.0).to(tl.float32)
    dt = tl.load(dt_ptr + offs_m * stride_dt_dim, mask=row, other=0.0).to(tl.float32)
    if HAS_DT_BIAS:
        dt += tl.load(dt_bias_ptr + offs_m * stride_dt_bias_dim, mask=row, other=0.0).to(tl.float32)
    if DT_SOFTPLUS:
        dt = tl.log(1.0 + tl.exp(dt))
    A_ptrs = A_ptr + (offs_m[:, None] * stride_A_dim + offs_n[None, :] * stride_A_dstate)
    A = tl.load(A_ptrs, mask=both, other=0.0).to(tl.float32)
    dA = tl.exp(A * dt[:, None])
    B = tl.load(B_ptr + offs_n * stride_B_dstate, mask=offs_n < dstate, other=0.0).to(tl.float32)
    C = tl.load(C_ptr + offs_n * stride_C_dstate, mask=offs_n < dstate, other=0.0).to(tl.float32)

    dB = B[None, :] * dt[:, None]
    state = state * dA + dB * x[:, None]
    tl.store(state_ptrs, state, mask=both)
    out = tl.sum(state * C[None, :], axis=1)
    if HAS_D:
        out += x * tl.load(D_ptr + offs_m * stride_D_dim, mask=row, other=0.0).to(tl.float32)
    if HAS_Z:
        z = tl.load(z_ptr + offs_m * stride_z_dim, mask=row, other=0.0).to(tl.float32)
        out *= z * tl.sigmoid(z)
    tl.store(out_ptr + offs_m * stride_out_dim, out, mask=row)


def selective_state_update(state, x, dt, A, B, C, D=None, z=None, dt_bias=None, dt_softplus=False):
    batch, dim, dstate = state.shape
    out = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(dim, META["BLOCK_SIZE_M"]), batch)  # noqa: E731
    z_strides = (z.stride(0), z.stride(1)) if z is not None else (0, 0)
    # no autotune: it would run the kernel several times and overwrite the state; tuned by hand
    BLOCK_SIZE_M, num_warps = (
        (32, 4)
        if dstate <= 16
        else ((16, 4) if dstate <= 32 else ((8, 4) if dstate <= 64 else ((4, 4) if dstate <= 128 else ((4, 8)))))
    )
    with torch.cuda.device(x.device.index):
        _selective_scan_update_kernel[grid](
            state, x, dt, dt_bias, A, B, C, D, z, out,
            batch, dim, dstate,
            state.stride(0), state.stride(1), state.stride(2),
            x.stride(0), x.stride(1),
            dt.stride(0), dt.stride(1),
            dt_bias.stride(0) if dt_bias is not None else 0,
            A.stride(0), A.stride(1),
            B.stride(0), B.stride(1),
            C.stride(0), C.stride(1),
            D.stride(0) if D is not None else 0,
            z_strides[0], z_strides[1],
            out.stride(0), out.stride(1),
            dt_softplus,
            BLOCK_SIZE_M,
            num_warps=num_warps,
        )  # fmt: skip
    return out


def run(state, x, dt, A, B, C, D, z, dt_bias):
    return selective_state_update(state, x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias, dt_softplus=True)
