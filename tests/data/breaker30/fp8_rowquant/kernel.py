"""A per-row fp8 (e4m3) quantization written for the thirtieth trial: each program takes one row of x (float16 or
float32), finds its absolute maximum through a ``@triton.jit`` helper that walks the row in ``BLOCK`` steps, then
walks it again storing ``x / scale`` clamped to the format's range; ``scale = amax / 448`` per row is returned beside
the codes. The block and warps come from a ``NamedTuple`` picked by the row's length."""

from typing import NamedTuple

import torch
import triton
import triton.language as tl

FP8_MAX = 448.0


class QuantTiles(NamedTuple):
    block: int
    warps: int


def _pick(n: int) -> QuantTiles:
    if n >= 8192:
        return QuantTiles(block=2048, warps=8)
    return QuantTiles(block=512, warps=4)


@triton.jit
def _row_amax(row, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(row + offs, mask=offs < n, other=0.0).to(tl.float32)
        acc = tl.maximum(acc, tl.abs(v))
    return tl.max(acc, axis=0)


@triton.jit
def _fp8_rows(X, Y, Scale, n, s_x, s_y, QMAX: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = X + pid.to(tl.int64) * s_x
    amax = tl.maximum(_row_amax(row, n, BLOCK), 1e-12)
    scale = amax / QMAX
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(row + offs, mask=offs < n, other=0.0).to(tl.float32)
        q = tl.clamp(v / scale, -QMAX, QMAX)
        tl.store(Y + pid.to(tl.int64) * s_y + offs, q.to(Y.dtype.element_ty), mask=offs < n)
    tl.store(Scale + pid, scale)


def run(x):
    M, N = x.shape
    y = torch.empty((M, N), device=x.device, dtype=torch.float8_e4m3fn)
    scale = torch.empty((M,), device=x.device, dtype=torch.float32)
    tiles = _pick(N)
    _fp8_rows[(M,)](x, y, scale, N, x.stride(0), y.stride(0), QMAX=FP8_MAX, BLOCK=tiles.block, num_warps=tiles.warps)
    return y, scale
