"""Bias add + ReLU over a 2-D tensor, its tiles from a frozen dataclass of launch settings and its stages from an
environment variable, as libraries keep per-device defaults."""

import os
from dataclasses import dataclass

import torch
import triton
import triton.language as tl


@dataclass(frozen=True)
class LaunchConfig:
    BLOCK_M: int = 16
    BLOCK_N: int = 32
    num_warps: int = 4


DEFAULT = LaunchConfig()
NUM_STAGES = int(os.environ.get("B4_NUM_STAGES", "2"))


@triton.jit
def _bias_relu(x_ptr, b_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x + b[None, :], 0.0), mask=mask)


def run(x, b, cfg: LaunchConfig = DEFAULT):
    M, N = x.shape
    y = torch.empty_like(x)
    grid = (triton.cdiv(M, cfg.BLOCK_M), triton.cdiv(N, cfg.BLOCK_N))
    _bias_relu[grid](x, b, y, M, N, BLOCK_M=cfg.BLOCK_M, BLOCK_N=cfg.BLOCK_N, num_warps=cfg.num_warps,
                     num_stages=NUM_STAGES)
    return y
