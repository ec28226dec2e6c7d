"""Mamba-2's gated RMS norm forward (``mamba_ssm/ops/triton/layernorm_gated.py``, ``_layer_norm_fwd``): the row cut
into ``ngroups`` groups of ``group_size``, each normalized on its own, the gate ``z * sigmoid(z)`` applied before the
norm (``norm_before_gate=False``); grid ``(M, ngroups)``; ``MAX_FUSED_SIZE = 65536 // x.element_size()`` and
``BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(group_size))`` with ``if group_size > BLOCK_N: raise
RuntimeError(...)``, ``num_warps = min(max(BLOCK_N // 256, 1), 8)``; two stacked ``@triton.heuristics``
(``HAS_BIAS`` / ``HAS_Z`` from ``is not None``, the bias left out: ``None`` passed); ``NORM_BEFORE_GATE`` and
``IS_RMS_NORM`` constexprs by keyword; ``with torch.cuda.device(x.device.index):``; ``mean`` ``None`` for an RMS
norm; the reciprocal deviations ``(ngroups * M,)`` returned group-major."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"HAS_BIAS": lambda args: args["B"] is not None})
@triton.heuristics({"HAS_Z": lambda args: args["Z"] is not None})
@triton.jit
def _layer_norm_fwd_1pass_kernel(
    X,  # input
    Y,  # output
    W,  # weights
    B,  # biases
    Z,  # gate
    Mean,  # means
    Rstd,  # 1 / std
    stride_x_row,
    stride_y_row,
    stride_z_row,
    M,  # rows
    N,  # columns of a group
    eps,
    BLOCK_N: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    HAS_Z: tl.constexpr,
    NORM_BEFORE_GATE: tl.constexpr,
    IS_RMS_NORM: tl.constexpr,
):
    row = tl.program_id(0)
    group = tl.program_id(1)
    X += row * stride_x_row + group * N
    Y += row * stride_y_row + group * N
    if HAS_Z:
        Z += row * stride_z_row + group * N
    if not IS_RMS_NORM:
        Mean += group * M
    Rstd += group * M
    W += group * N
    if HAS_BIAS:
        B += group * N
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    if HAS_Z and not NORM_BEFORE_GATE:
        z = tl.load(Z + cols, mask=cols < N).to(tl.float32)
        x *= z * tl.sigmoid(z)
    if not IS_RMS_NORM:
        mean = tl.sum(x, axis=0) / N
        tl.store(Mean + row, mean)
        xbar = tl.where(cols < N, x - mean, 0.0)
        var = tl.sum(xbar * xbar, axis=0) / N
    else:
        xbar = tl.where(cols < N, x, 0.0)
        var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Rstd + row, rstd)
    mask = cols < N
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    if HAS_BIAS:
        b = tl.load(B + cols, mask=mask).to(tl.float32)
    x_hat = (x - mean) * rstd if not IS_RMS_NORM else x * rstd
    y = x_hat * w + b if HAS_BIAS else x_hat * w
    if HAS_Z and NORM_BEFORE_GATE:
        z = tl.load(Z + cols, mask=mask).to(tl.float32)
        y *= z * tl.sigmoid(z)
    tl.store(Y + cols, y, mask=mask)


def _layer_norm_fwd(x, weight, bias, eps, z=None, out=None, group_size=None, norm_before_gate=True,
                    is_rms_norm=False):
    M, N = x.shape
    if group_size is None:
        group_size = N
    assert N % group_size == 0
    ngroups = N // group_size
    assert x.stride(-1) == 1
    if z is not None:
        assert z.stride(-1) == 1
        assert z.shape == (M, N)
    assert weight.shape == (N,)
    if out is None:
        out = torch.empty_like(x)
    mean = torch.empty((ngroups * M,), dtype=torch.float32, device=x.device) if not is_rms_norm else None
    rstd = torch.empty((ngroups * M,), dtype=torch.float32, device=x.device)
    # less than 64 KB a group: the fused kernel
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(group_size))
    if group_size > BLOCK_N:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    # the number of warps
    num_warps = min(max(BLOCK_N // 256, 1), 8)
    grid = (M, ngroups)
    with torch.cuda.device(x.device.index):
        _layer_norm_fwd_1pass_kernel[grid](
            x, out, weight, bias, z, mean, rstd,
            x.stride(0), out.stride(0), z.stride(0) if z is not None else 0,
            M, group_size, eps,
            BLOCK_N=BLOCK_N,
            NORM_BEFORE_GATE=norm_before_gate,
            IS_RMS_NORM=is_rms_norm,
            num_warps=num_warps,
        )
    return out, mean, rstd


def run(x, z, weight, group):
    out, _, rstd = _layer_norm_fwd(
        x, weight, None, 1e-6, z=z, group_size=int(group), norm_before_gate=False, is_rms_norm=True
    )
    return out, rstd
