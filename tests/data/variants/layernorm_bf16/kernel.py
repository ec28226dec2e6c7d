"""LayerNorm forward (tests/data/breaker/layernorm_cap) in bf16: fp32 sums, bf16 in and out."""

import torch
import triton
import triton.language as tl

# 64 KB per feature row at most, as kernel libraries cap it.
MAX_FUSED_SIZE = 65536 // 4


def calculate_settings(n):
    block = min(MAX_FUSED_SIZE, triton.next_power_of_2(n))
    num_warps = 4
    if block >= 8192:
        num_warps = 16
    elif block >= 2048:
        num_warps = 8
    return block, num_warps


@triton.jit
def _ln_fwd(X, Y, W, B, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / N + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        m = cols < N
        x = tl.load(X + cols, mask=m, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=m)
        b = tl.load(B + cols, mask=m)
        y = (x - mean) * rstd * w.to(tl.float32) + b.to(tl.float32)
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=m)


def run(x, weight, bias):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE, num_warps = calculate_settings(N)
    _ln_fwd[(M,)](x, y, weight, bias, x.stride(0), N, 1e-5, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y
