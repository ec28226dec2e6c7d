"""Tile transpose through shared memory with no swizzle and no padding (Triton gluon).

Each 32x32 fp32 tile is stored row-major into shared memory, then read back column-wise: the 32 threads
of a warp read one column, 128 bytes apart, so all of them hit the same bank (a 32-way bank conflict).
"""

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def transpose_naive_smem_kernel(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr):
    pid_m = gl.program_id(0)
    pid_n = gl.program_id(1)
    row_layout: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    col_layout: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1])
    smem_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    rm = pid_m * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, row_layout))
    rn = pid_n * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, row_layout))
    tile = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    smem = gl.allocate_shared_memory(gl.float32, [BM, BN], smem_layout)
    smem.store(tile)
    t = smem.load(col_layout)
    cm = pid_m * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, col_layout))
    cn = pid_n * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, col_layout))
    gl.store(y_ptr + cn[None, :] * M + cm[:, None], t)


def run(x):
    M, N = x.shape
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    transpose_naive_smem_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, y, M, N, BM=32, BN=32, num_warps=4)
    return y
