"""A fused bias + activation epilogue over a 2-D tile: the tile shape is a knob, the activation, the
bias and the extra output are what the caller asked for."""

import torch
import triton
import triton.language as tl


@triton.jit
def bias_act_kernel(x_ptr, bias_ptr, out_ptr, pre_ptr, M, N,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    ACTIVATION: tl.constexpr, HAS_BIAS: tl.constexpr, RETURN_PREACT: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0).to(tl.float32)
    if HAS_BIAS:
        x += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if RETURN_PREACT:
        tl.store(pre_ptr + rm[:, None] * N + rn[None, :], x, mask=mask)
    if ACTIVATION == "gelu":
        x = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    elif ACTIVATION == "relu":
        x = tl.maximum(x, 0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], x.to(out_ptr.dtype.element_ty), mask=mask)


def run(x, bias):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 64))
    bias_act_kernel[grid](x, bias, out, out, M, N, BLOCK_M=32, BLOCK_N=64,
                          ACTIVATION="gelu", HAS_BIAS=True, RETURN_PREACT=False, num_warps=4)
    return out
