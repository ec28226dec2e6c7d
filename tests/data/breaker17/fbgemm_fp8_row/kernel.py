"""FBGEMM's row-wise scaled fp8 GEMM (fbgemm_gpu/experimental/gemm/triton_gemm/fp8_gemm.py,
``_kernel_matmul_fp8_row``, the non-persistent form): ``@triton.autotune(configs=MATMUL_CONFIGS, key=["m_key",
"n_key", "k_key"], prune_configs_by={...}, use_cuda_graph=True)`` keyed on sizes the host rounds up
(``get_matmul_tune``); ``@triton.heuristics`` of ``EVEN_K`` reading three names; the grid ``(cdiv(M, BLOCK_M) *
cdiv(N, BLOCK_N), SPLIT_K)`` of a ``def grid(META)`` reading three META names; rows and columns wrapped ``% M`` under
``tl.max_contiguous(tl.multiple_of(...))``; e4m3 operands, an fp32 accumulator through ``tl.dot(a, b, acc)``, the
row and column scales applied after the loop, a bf16 output."""

import torch
import triton
import triton.language as tl

MATMUL_CONFIGS = [
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 128, "SPLIT_K": 1}, num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 128, "SPLIT_K": 1}, num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 128, "SPLIT_K": 1}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 1}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 1}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "SPLIT_K": 1}, num_stages=3, num_warps=8),
]


def prune_configs_block(configs, named_args, **kwargs):
    """The configs whose M and N tiles are not larger than the sizes' next power of two (one at least)."""
    M, N = named_args["M"], named_args["N"]
    kept = [
        c for c in configs
        if c.kwargs["BLOCK_M"] <= max(32, triton.next_power_of_2(M))
        and c.kwargs["BLOCK_N"] <= max(32, triton.next_power_of_2(N))
    ]  # fmt: skip
    return kept or configs[:1]


@triton.autotune(
    configs=MATMUL_CONFIGS,
    key=["m_key", "n_key", "k_key"],
    prune_configs_by={"early_config_prune": prune_configs_block, "perf_model": None, "top_k": None},
    use_cuda_graph=True,
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % (args["BLOCK_K"] * args["SPLIT_K"]) == 0})
@triton.jit
def _kernel_matmul_fp8_row(
    A,
    B,
    C,
    M,
    N,
    K,
    m_key,
    n_key,
    k_key,
    A_scale,
    B_scale,
    stride_am,
    stride_ak,
    stride_bn,
    stride_bk,
    stride_cm,
    stride_cn,
    dot_out_dtype: tl.constexpr,
    allow_tf32: tl.constexpr,
    fp8_fast_accum: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    EVEN_K: tl.constexpr,
    AB_DTYPE: tl.constexpr,
) -> None:
    # matrix multiplication
    pid = tl.program_id(0)
    pid_z = tl.program_id(1)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # re-order program ID for better L2 performance
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // (group_size)
    # do matrix multiplication
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = pid_z * BLOCK_K + tl.arange(0, BLOCK_K)
    # pointers
    A = A + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=dot_out_dtype)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            k_remaining = K - k * (BLOCK_K * SPLIT_K)
            a = tl.load(A, mask=rk[None, :] < k_remaining, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k_remaining, other=0.0)
        if AB_DTYPE:
            a = a.to(C.dtype.element_ty)
            b = b.to(C.dtype.element_ty)
        if fp8_fast_accum:
            acc = tl.dot(a, b, acc, out_dtype=dot_out_dtype, allow_tf32=allow_tf32)
        else:
            acc += tl.dot(a, b, out_dtype=dot_out_dtype, allow_tf32=allow_tf32)

        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)

    # invert scaling
    a_scale = tl.load(A_scale + rm, mask=rm < M)
    b_scale = tl.load(B_scale + rn, mask=rn < N)
    scale = a_scale[:, None] * b_scale[None, :]
    acc *= scale

    acc = acc.to(C.dtype.element_ty)
    C = C + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    # handles write-back with reduction-splitting
    if SPLIT_K == 1:
        tl.store(C, acc, mask=mask)
    else:
        tl.atomic_add(C, acc, mask=mask)


def get_matmul_tune(M, N, K):
    """The autotuner's keys: each size rounded up to a power of two (at least 16), one tuning per bucket."""
    return tuple(max(16, triton.next_power_of_2(x)) for x in (M, N, K))


def matmul_fp8_row(a, b, a_scale, b_scale, allow_tf32=True, fp8_fast_accum=True):
    M, K = a.shape
    N, _ = b.shape
    m_key, n_key, k_key = get_matmul_tune(M, N, K)
    c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)

    def grid(META):
        return (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), META["SPLIT_K"])

    _kernel_matmul_fp8_row[grid](
        a,
        b,
        c,
        M,
        N,
        K,
        m_key,
        n_key,
        k_key,
        a_scale,
        b_scale,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        dot_out_dtype=tl.float32,
        allow_tf32=allow_tf32,
        fp8_fast_accum=fp8_fast_accum,
        GROUP_M=8,
        AB_DTYPE=False,
    )
    return c


def run(a, b, a_scale, b_scale):
    return matmul_fp8_row(a, b, a_scale, b_scale)
