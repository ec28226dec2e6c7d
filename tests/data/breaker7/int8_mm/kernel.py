"""int8 x int8 -> int32 matmul with a row-wise and a column-wise scale applied in the epilogue, as torchao's
prototype int8 kernels write it: the autotune space is a list of (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)
tuples turned into triton.Config by a comprehension, pruned per problem by prune_configs_by, grouped tiles, masked
K loop. The tuple list is cut to interpreter-sized tiles (the library's starts at 128 x 256 x 64)."""

import torch
import triton
import triton.language as tl

# (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)
configs = [
    (32, 32, 32, 3, 4),
    (32, 64, 32, 4, 4),
    (64, 32, 64, 4, 4),
]
configs = [
    triton.Config(dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk), num_stages=s, num_warps=w) for bm, bn, bk, s, w in configs
]


def _prune(configs, named_args, **kwargs):
    K = named_args["K"]
    kept = [c for c in configs if c.kwargs["BLOCK_K"] <= max(32, triton.next_power_of_2(K))]
    return kept or configs[:1]


@triton.autotune(configs=configs, key=["M", "N", "K", "stride_ak", "stride_bk"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _scaled_int8_mm_kernel(A_ptr, B_ptr, C_ptr, row_scale_ptr, col_scale_ptr, M, N, K, stride_am, stride_ak,
                           stride_bk, stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr = 8):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    A = A_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    B = B_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(K, 0, -BLOCK_K):
        a = tl.load(A, mask=(rm[:, None] < M) & (rk[None, :] < k), other=0)
        b = tl.load(B, mask=(rk[:, None] < k) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk
    row_scale = tl.load(row_scale_ptr + rm, mask=rm < M, other=0.0)
    col_scale = tl.load(col_scale_ptr + rn, mask=rn < N, other=0.0)
    out = acc.to(tl.float32) * row_scale[:, None] * col_scale[None, :]
    C = C_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(C, out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(a, b, row_scale, col_scale):
    """a: (M, K) int8, b: (K, N) int8, row_scale (M,) and col_scale (N,) fp32; returns (a @ b) * scales in fp32."""
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)  # noqa: E731
    _scaled_int8_mm_kernel[grid](a, b, c, row_scale, col_scale, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                 b.stride(1), c.stride(0), c.stride(1))
    return c
