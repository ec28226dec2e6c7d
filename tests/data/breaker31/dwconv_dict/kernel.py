"""A depthwise 1-D convolution ("same" padding, odd width, each channel its own filter) over (B, C, L) float32
written for the thirty-first trial: one program a (batch, channel, tile of L), the filter taps unrolled by
``tl.static_range``. The tile and warps come from a dict keyed by the filter's width, wider filters taking
shorter tiles."""

import triton
import triton.language as tl
import torch


@triton.jit
def _dwconv1d(X, W, Bias, Y, C, L, KW: tl.constexpr, BLOCK_L: tl.constexpr):
    row = tl.program_id(0)  # b * C + c
    c = row % C
    offs = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    base = row.to(tl.int64) * L
    acc = tl.zeros((BLOCK_L,), dtype=tl.float32) + tl.load(Bias + c)
    for t in tl.static_range(KW):
        pos = offs + (t - KW // 2)
        v = tl.load(X + base + pos, mask=(pos >= 0) & (pos < L), other=0.0)
        acc += v * tl.load(W + c * KW + t)
    tl.store(Y + base + offs, acc, mask=offs < L)


_TILES = {
    3: {"BLOCK_L": 512, "num_warps": 4},
    5: {"BLOCK_L": 256, "num_warps": 4},
    7: {"BLOCK_L": 256, "num_warps": 2},
}
_DEFAULT = {"BLOCK_L": 128, "num_warps": 2}


def run(x, weight, bias):
    B, C, L = x.shape
    KW = weight.shape[1]
    cfg = _TILES.get(KW, _DEFAULT)
    y = torch.empty_like(x)
    grid = (B * C, triton.cdiv(L, cfg["BLOCK_L"]))
    _dwconv1d[grid](x, weight, bias, y, C, L, KW=KW, **cfg)
    return y
