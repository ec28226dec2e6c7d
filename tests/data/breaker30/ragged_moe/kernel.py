"""A ragged (grouped) MoE GEMM written for the thirtieth trial: the tokens ``x`` come sorted by expert, expert ``e``
owning rows ``offsets[e]:offsets[e + 1]`` (an expert may own none); each owns its ``(K, N)`` weight of ``w``. The host
turns the offsets into a table of row tiles (the expert and first row of each ``BLOCK_M`` tile), so the grid is the
number of tiles, not ``E * max_rows``; each program multiplies one tile by its expert's weight in ``BLOCK_K`` steps."""

import torch
import triton
import triton.language as tl


@triton.jit
def _ragged_gemm(
    X, W, Out, TileExpert, TileRow, Offsets, N, K,
    s_xm, s_we, s_wk, s_wn, s_om,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    tile = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.load(TileExpert + tile)
    row0 = tl.load(TileRow + tile)
    end = tl.load(Offsets + e + 1)
    rm = row0 + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    w_base = W + e.to(tl.int64) * s_we
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(
            X + rm[:, None].to(tl.int64) * s_xm + ks[None, :],
            mask=(rm[:, None] < end) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(w_base + ks[:, None] * s_wk + rn[None, :] * s_wn, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    o = Out + rm[:, None].to(tl.int64) * s_om + rn[None, :]
    tl.store(o, acc.to(Out.dtype.element_ty), mask=(rm[:, None] < end) & (rn[None, :] < N))


def _tile_table(offsets, block_m):
    """(expert, first row) of every ``block_m`` row tile of every expert, as int32 tensors on the offsets' device."""
    counts = (offsets[1:] - offsets[:-1]).long()
    tiles = (counts + block_m - 1) // block_m
    experts = torch.arange(counts.numel(), device=offsets.device)
    tile_expert = torch.repeat_interleave(experts, tiles)
    first_tile = torch.cumsum(tiles, 0) - tiles
    local = torch.arange(tile_expert.numel(), device=offsets.device) - first_tile[tile_expert]
    tile_row = offsets[:-1].long()[tile_expert] + local * block_m
    return tile_expert.to(torch.int32), tile_row.to(torch.int32)


def run(x, w, offsets):
    T, K = x.shape
    E, _, N = w.shape
    out = torch.empty((T, N), device=x.device, dtype=x.dtype)
    BLOCK_M = 32
    BLOCK_N = 64
    tile_expert, tile_row = _tile_table(offsets, BLOCK_M)
    if tile_expert.numel() == 0:
        return out
    grid = (tile_expert.numel(), triton.cdiv(N, BLOCK_N))
    _ragged_gemm[grid](
        x, w, out, tile_expert, tile_row, offsets, N, K,
        x.stride(0), w.stride(0), w.stride(1), w.stride(2), out.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=32, num_warps=4,
    )  # fmt: skip
    return out
