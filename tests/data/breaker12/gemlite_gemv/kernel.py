"""GemLite's low-bit GEMV (``gemv_A16fWnO16f_int32packing``): 4-bit weights packed eight to an int32 along K
(element k at bits ``(k % elements_per_sample) * W_nbits`` of word ``k // elements_per_sample``), a scale and a zero
point every ``group_size`` values of K, dequantized in the kernel as ``(q - zero) * scale``. One program a tile of
``BLOCK_SIZE_N`` columns and ``BLOCK_SIZE_K`` rows of K (grid ``lambda meta: (cdiv(M, BLOCK_SIZE_M) * cdiv(N,
BLOCK_SIZE_N), cdiv(K, BLOCK_SIZE_K))``), summed by ``tl.atomic_add`` into the output, which ``torch.empty``
leaves to each config's ``pre_hook=init_to_zero("c_ptr")``. ``@triton.autotune`` of a nested-loop list of
configs keyed on ``["M", "N", "K", "group_size", "elements_per_sample"]`` with ``prune_configs_by={"early_config_prune":
kernel_config_pruner}``, a generator that clamps ``BLOCK_SIZE_K`` to the group (one scale a tile) and to K and
yields rewritten configs; K loads are unmasked (``assert K % group_size == 0``), N masked."""

import torch
import triton
import triton.language as tl

KEYS = ["M", "N", "K", "group_size", "elements_per_sample"]


def init_to_zero(name):
    return lambda nargs: nargs[name].zero_()


def kernel_config_pruner(configs, nargs, **kwargs):
    m, n, k = nargs["M"], nargs["N"], nargs["K"]
    g = nargs["group_size"]
    used = set()
    for config in configs:
        block_size_m = 1
        block_size_n = min(n, config.kwargs["BLOCK_SIZE_N"])
        block_size_k = min(k, config.kwargs["BLOCK_SIZE_K"])
        block_size_k = min(g, block_size_k)
        block_size_n = max(16, triton.next_power_of_2(block_size_n))
        block_size_k = max(8, triton.next_power_of_2(block_size_k))
        key = (block_size_m, block_size_n, block_size_k, config.num_warps, config.num_stages)
        if key in used:
            continue
        used.add(key)
        yield triton.Config(
            {"BLOCK_SIZE_M": block_size_m, "BLOCK_SIZE_N": block_size_n, "BLOCK_SIZE_K": block_size_k},
            num_warps=config.num_warps,
            num_stages=config.num_stages,
            pre_hook=config.pre_hook,
        )


def get_autotune_config():
    configs = []
    for w in [2, 4]:
        for s in [1, 2]:
            for n in [64, 128]:
                for k in [16, 32]:
                    configs.append(
                        triton.Config(
                            {"BLOCK_SIZE_M": 1, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k},
                            num_stages=s,
                            num_warps=w,
                            pre_hook=init_to_zero("c_ptr"),
                        )
                    )
    return configs


@triton.autotune(
    configs=get_autotune_config(),
    key=KEYS,
    prune_configs_by={"early_config_prune": kernel_config_pruner},
)
@triton.jit
def gemv_A16fWnO16f_int32packing_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    scales_ptr,
    zeros_ptr,
    M,
    N,
    K,
    W_nbits: tl.constexpr,
    group_size: tl.constexpr,
    unpack_mask: tl.constexpr,
    elements_per_sample: tl.constexpr,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    stride_meta_g,
    stride_meta_n,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    pid_k = tl.program_id(axis=1)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = pid_k * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
    mask_n = offs_n < N

    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + (offs_k[:, None] // elements_per_sample) * stride_bk + offs_n[None, :] * stride_bn
    a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0).to(tl.float32)
    b = tl.load(b_ptrs, mask=mask_n[None, :], other=0)

    k_m = (pid_k * BLOCK_SIZE_K) // group_size
    scales = tl.load(scales_ptr + offs_n[None, :] * stride_meta_n + k_m * stride_meta_g, mask=mask_n[None, :])
    zeros = tl.load(zeros_ptr + offs_n[None, :] * stride_meta_n + k_m * stride_meta_g, mask=mask_n[None, :])

    q_shift = ((offs_k % elements_per_sample) * W_nbits).to(tl.int32)[:, None]
    b = (b >> q_shift) & unpack_mask
    b = (b.to(tl.float32) - zeros) * scales

    acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.atomic_add(c_ptrs, acc, mask=(offs_m[:, None] < M) & mask_n[None, :])


def gemv_A16fWnO16f(x, W_q, scales, zeros, W_nbits, group_size):
    M, K = x.shape
    N = W_q.shape[1]
    assert K % group_size == 0
    elements_per_sample = 32 // W_nbits
    output = torch.empty((M, N), device=x.device, dtype=torch.float32)
    grid = lambda meta: (  # noqa: E731
        triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),
        triton.cdiv(K, meta["BLOCK_SIZE_K"]),
    )
    gemv_A16fWnO16f_int32packing_kernel[grid](
        x,
        W_q,
        output,
        scales,
        zeros,
        M,
        N,
        K,
        W_nbits,
        group_size,
        2**W_nbits - 1,
        elements_per_sample,
        x.stride(0),
        x.stride(1),
        W_q.stride(0),
        W_q.stride(1),
        output.stride(0),
        output.stride(1),
        scales.stride(0),
        scales.stride(1),
    )
    return output


def run(x, W_q, scales, zeros):
    return gemv_A16fWnO16f(x, W_q, scales, zeros, 4, 64)
