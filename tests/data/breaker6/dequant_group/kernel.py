"""Group-wise dequantization of an int8 checkpoint: w = q * scale[row, col // GROUP_SIZE], one fp32 scale for every
GROUP_SIZE columns of a row (the checkpoint's format: its reference reads the same GROUP_SIZE). A program expands
BLOCK_G groups of one row; how many is the launch's choice."""

import torch
import triton
import triton.language as tl

GROUP_SIZE = 32


@triton.jit
def _dequant_groups(q_ptr, s_ptr, out_ptr, N, n_groups, GROUP_SIZE: tl.constexpr, BLOCK_G: tl.constexpr):
    row = tl.program_id(0)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    gmask = g < n_groups
    scale = tl.load(s_ptr + row * n_groups + g, mask=gmask, other=0.0)
    cols = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    q = tl.load(q_ptr + row * N + cols, mask=gmask[:, None], other=0)
    w = q.to(tl.float32) * scale[:, None]
    tl.store(out_ptr + row * N + cols, w, mask=gmask[:, None])


def run(q, scales):
    M, N = q.shape
    assert N % GROUP_SIZE == 0, "a row is whole groups"
    n_groups = N // GROUP_SIZE
    out = torch.empty(M, N, device=q.device, dtype=torch.float32)
    BLOCK_G = 4
    grid = (M, triton.cdiv(n_groups, BLOCK_G))
    _dequant_groups[grid](q, scales, out, N, n_groups, GROUP_SIZE=GROUP_SIZE, BLOCK_G=BLOCK_G, num_warps=4)
    return out
