"""LayerNorm forward (tests/data/breaker/layernorm_cap) with its loop removed: the whole row in one block of
min(MAX_FUSED_SIZE, next_power_of_2(N)), so the cap is the longest row the kernel handles, not a knob."""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 512


def calculate_settings(n):
    block = min(MAX_FUSED_SIZE, triton.next_power_of_2(n))
    num_warps = 4
    if block >= 256:
        num_warps = 8
    return block, num_warps


@triton.jit
def _ln_fwd(X, Y, W, B, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    m = cols < N
    x = tl.load(X + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(m, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / N + eps)
    w = tl.load(W + cols, mask=m)
    b = tl.load(B + cols, mask=m)
    tl.store(Y + row * stride + cols, d * rstd * w + b, mask=m)


def run(x, weight, bias):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE, num_warps = calculate_settings(N)
    _ln_fwd[(M,)](x, y, weight, bias, x.stride(0), N, 1e-5, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y
