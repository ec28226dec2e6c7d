"""2-D transpose; the tile is chosen by dtype with a conditional expression."""

import torch
import triton
import triton.language as tl


@triton.jit
def _transpose(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(y_ptr + rn[None, :] * sym + rm[:, None] * syn, tile, mask=mask)


def run(x):
    M, N = x.shape
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    BLOCK_M, BLOCK_N = (64, 64) if x.dtype == torch.float16 else (32, 32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _transpose[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
