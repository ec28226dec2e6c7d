"""An int4 weight-only GEMM written for the twenty-ninth trial: ``w_packed`` (K // 2, N) uint8 holds two 4-bit codes
a byte along K (the even k in the low nibble), dequantized in the K loop as ``(code - zero) * scale`` with one scale and
zero point per ``group_size`` rows of K and column, then multiplied with the float16 activations in float32. Tiles
from an autotune list keyed on the problem, an L2-grouped program order; the quantization group read from the scales'
shape."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _int4_mm(
    A, Wp, S, Z, C, M, N, K,
    s_am, s_ak, s_wk, s_wn, s_sg, s_sn, s_cm, s_cn,
    QGROUP: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * grid_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_here
    pid_n = (pid % per_group) // rows_here
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(A + rm[:, None] * s_am + rk[None, :] * s_ak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        wmask = (rk[:, None] < K) & (rn[None, :] < N)
        packed = tl.load(Wp + (rk[:, None] // 2) * s_wk + rn[None, :] * s_wn, mask=wmask, other=0)
        code = (packed.to(tl.int32) >> ((rk[:, None] % 2) * 4)) & 0xF
        g = rk[:, None] // QGROUP
        scale = tl.load(S + g * s_sg + rn[None, :] * s_sn, mask=wmask, other=0.0).to(tl.float32)
        zero = tl.load(Z + g * s_sg + rn[None, :] * s_sn, mask=wmask, other=0.0).to(tl.float32)
        w = (code.to(tl.float32) - zero) * scale
        acc += tl.dot(a.to(tl.float32), w, input_precision="ieee")
    tl.store(C + rm[:, None] * s_cm + rn[None, :] * s_cn, acc.to(C.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(a, w_packed, scales, zeros):
    M, K = a.shape
    N = w_packed.shape[1]
    group_size = K // scales.shape[0]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    _int4_mm[grid](
        a, w_packed, scales, zeros, c, M, N, K,
        a.stride(0), a.stride(1), w_packed.stride(0), w_packed.stride(1),
        scales.stride(0), scales.stride(1), c.stride(0), c.stride(1),
        QGROUP=group_size,
    )
    return c
