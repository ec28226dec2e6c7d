"""Sum of a matrix in two stages: each program sums one 64 x 64 tile into a buffer of partial sums, then one
program sums the partials. The buffer and the grid are sized with the tiles' value written again (both 64)."""

import torch
import triton
import triton.language as tl


@triton.jit
def tile_sum(x_ptr, partials_ptr, M, N, tiles_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    tl.store(partials_ptr + pid_m * tiles_n + pid_n, tl.sum(tl.sum(x, axis=1), axis=0))


@triton.jit
def final_sum(partials_ptr, out_ptr, num, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, num, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partials_ptr + offs, mask=offs < num, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def run(x):
    M, N = x.shape
    tiles_m, tiles_n = triton.cdiv(M, 64), triton.cdiv(N, 64)
    partials = torch.empty(tiles_m * tiles_n, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    tile_sum[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, partials, M, N, tiles_n, BLOCK_M=64, BLOCK_N=64)
    final_sum[(1,)](partials, out, tiles_m * tiles_n, BLOCK=128)
    return out
