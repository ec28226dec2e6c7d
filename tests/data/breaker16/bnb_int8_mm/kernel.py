"""bitsandbytes' ``int8_matmul_rowwise_dequantize`` (bitsandbytes/triton/int8_matmul_rowwise_dequantize.py): an int8
GEMM with an int32 accumulator, dequantized by a per-row scale of A and a per-column scale of B
(``divfactor = 1 / (127 * 127)``), an optional bias; ``@triton.autotune`` of a literal list plus
``get_configs_io_bound()`` (a loop building configs with ``SPLIT_K``), keyed on ``["M", "N", "K"]``, with
``prune_configs_by={"early_config_prune": ..., "perf_model": ..., "top_k": 10}``; ``@triton.heuristics`` of
``EVEN_K`` reading THREE names (``K % (BLOCK_K * SPLIT_K) == 0``); a grid ``lambda META`` reading ``BLOCK_M``,
``BLOCK_N`` AND ``SPLIT_K``; ``SPLIT_K > 1`` adds by ``tl.atomic_add`` into the caller's output (which bitsandbytes
allocates with ``torch.empty``: its lists reach split-K configs only through the io-bound helper, which we cut to
``SPLIT_K = 1`` as its ``early_config_prune`` would pick on the sizes here). The pruning model (Triton's old
``matmul_perf_model``) needs a GPU's clocks: we keep its shape, a shared-memory bound, and a perf model ranking by
tile area."""

import torch
import triton
import triton.language as tl


def get_configs_io_bound():
    configs = []
    for num_stages in [2, 3, 4, 5, 6]:
        for block_m in [16, 32]:
            for block_k in [32, 64]:
                for block_n in [32, 64, 128, 256]:
                    num_warps = 2 if block_n <= 64 else 4
                    configs.append(
                        triton.Config(
                            {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "SPLIT_K": 1},
                            num_stages=num_stages,
                            num_warps=num_warps,
                        )
                    )
    return configs


def early_config_prune(configs, named_args, **kwargs):
    """Drop configs whose pipelined tiles overflow shared memory (228 KB on the H100), then keep one ``num_stages``
    per tile (the most that fits), as Triton's old ``matmul_perf_model.early_config_prune`` does."""
    pruned = []
    for config in configs:
        kw = config.kwargs
        required = (kw["BLOCK_M"] + kw["BLOCK_N"]) * kw["BLOCK_K"] * config.num_stages
        if required <= 232448:
            pruned.append(config)
    by_tile = {}
    for config in pruned:
        kw = config.kwargs
        key = (kw["BLOCK_M"], kw["BLOCK_N"], kw["BLOCK_K"], kw["SPLIT_K"], config.num_warps)
        if key not in by_tile or by_tile[key].num_stages < config.num_stages:
            by_tile[key] = config
    return list(by_tile.values())


def estimate_matmul_time(num_warps, num_stages, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, **kwargs):
    """A stand-in for Triton's roofline estimate: the waves of tiles times each tile's K steps."""
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N) * SPLIT_K
    return tiles * triton.cdiv(K, BLOCK_K * SPLIT_K) / (BLOCK_M * BLOCK_N)


@triton.autotune(
    configs=[
        # basic configs for compute-bound matmuls
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 1}, num_stages=5, num_warps=2),
    ]
    + get_configs_io_bound(),
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": early_config_prune, "perf_model": estimate_matmul_time, "top_k": 10},
)
@triton.heuristics(
    {
        "EVEN_K": lambda args: args["K"] % (args["BLOCK_K"] * args["SPLIT_K"]) == 0,
    }
)
@triton.jit
def _int8_matmul_rowwise_dequantize(
    A, B, C, bias, state_x_ptr, state_w_ptr,
    M, N, K, divfactor, has_bias: tl.constexpr,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, EVEN_K: tl.constexpr,
    ACC_TYPE: tl.constexpr,
):  # fmt: skip
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

    # rematerialize rm and rn to save registers
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)

    w_factor = tl.load(state_w_ptr + rbn)[None, :]
    x_factor = tl.load(state_x_ptr + ram)[:, None]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            k_remaining = K - k * (BLOCK_K * SPLIT_K)
            a = tl.load(A, mask=rk[None, :] < k_remaining, other=0)
            b = tl.load(B, mask=rk[:, None] < k_remaining, other=0)
        acc += tl.dot(a, b)
        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk

    acc = w_factor * (x_factor * (acc * divfactor))
    acc = acc.to(C.dtype.element_ty)

    if has_bias:
        bias = tl.load(bias + rn).to(C.dtype.element_ty)
        acc = acc + bias[None, :]

    C = C + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    # handles write-back with reduction-splitting
    if SPLIT_K == 1:
        tl.store(C, acc, mask=mask)
    else:
        tl.atomic_add(C, acc, mask=mask)


def int8_matmul_rowwise_dequantize(a, b, state_x, state_w, bias):
    divfactor = 1.0 / (127.0 * 127.0)

    has_bias = 0 if bias is None else 1

    device = a.device
    # handle non-contiguous inputs if necessary
    if a.stride(0) > 1 and a.stride(1) > 1:
        a = a.contiguous()
    if b.stride(0) > 1 and b.stride(1) > 1:
        b = b.contiguous()
    # checks constraints
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    _, N = b.shape
    # allocates output
    c = torch.empty((M, N), device=device, dtype=torch.float16)
    # accumulator types
    ACC_TYPE = tl.float32  # if a.dtype in [torch.float16, torch.bfloat16, torch.float32] else tl.int32
    # launch int8_matmul_rowwise_dequantize kernel
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), META["SPLIT_K"])  # noqa: E731
    _int8_matmul_rowwise_dequantize[grid](
        a, b, c, bias, state_x, state_w,
        M, N, K, divfactor, has_bias,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        GROUP_M=8, ACC_TYPE=ACC_TYPE,
    )  # fmt: skip
    return c


def run(a, b, state_x, state_w, bias):
    return int8_matmul_rowwise_dequantize(a, b, state_x, state_w, bias)
