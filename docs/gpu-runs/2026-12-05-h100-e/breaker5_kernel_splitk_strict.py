"""Split-K GEMM: SPLIT_K programs share each output tile, each summing its slice of K and adding it with
``tl.atomic_add`` into an output the autotuner zeroes before every timing run (``reset_to_zero``). Configs the
problem cannot use are pruned early; a roofline-ish perf model ranks the rest (``top_k``)."""

import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    """A config whose K slices would be empty is dropped (K below 32 is not served)."""
    K = named_args["K"]
    return [c for c in configs if c.kwargs["BLOCK_K"] * c.kwargs["SPLIT_K"] <= K]


def _perf(M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, **kwargs):
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N) * SPLIT_K
    return (M * N * K) / max(1, tiles) + BLOCK_M * BLOCK_N  # smaller is better: work per program plus tile cost


def _mm_splitk_tuned_first(configs, named_args, **kwargs):  # kernelopt: tuned
    """The tuned configs (first in the list) alone wherever _prune keeps one, else what it keeps."""
    kept = _prune(configs, named_args, **kwargs)
    tuned = [c for c in kept if any(c is t for t in configs[:1])]
    return tuned or kept


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "SPLIT_K": 8}, num_warps=8),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "SPLIT_K": 2}, num_warps=4),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4}, num_warps=4),
        triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16, "SPLIT_K": 8}, num_warps=2),
    ],
    key=["M", "K"],
    prune_configs_by={"early_config_prune": _mm_splitk_tuned_first, "perf_model": _perf, "top_k": 2},
    reset_to_zero=["c_ptr"],
)
@triton.jit
def _mm_splitk(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_n
    pid_n = pid % num_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=mask)


def run(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), META["SPLIT_K"])  # noqa: E731
    _mm_splitk[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c
