"""GemLite's A16W8 GEMM (fp16 activations times int8 weights with one fp16 scale a column), in the shape of its
``gemm_A16fWnO16f`` kernel: the grouped tile order a ``@triton.jit(noinline=True)`` HELPER of scalars that takes the
tiles as constexprs (``linear_tile_to_grouped(pid, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)``; a noinline
function takes no tensor on a GPU), the weights dequantized by an inlined ``@triton.jit`` helper taking the tile's
constexpr width (``dequantize(b, scales, BLOCK_SIZE_N)``); the K loop ``tl.range(0, num_pid_k, num_stages=...)``
(loop-level pipelining); the settings a dict from a ``functools.lru_cache``d ``get_config(M, N, K)`` keyed on the
bucketed ``M`` (``next_power_of_2``), splatted ``**config`` with ``num_warps`` / ``num_stages`` inside; grouped
tiles (``GROUP_SIZE_M``), ``tl.max_contiguous`` / ``tl.multiple_of`` hints, int64 row offsets."""

import functools

import torch
import triton
import triton.language as tl


@triton.jit
def dequantize(b, scales, BLOCK_SIZE_N: tl.constexpr):
    return b.to(scales.dtype) * tl.reshape(scales, (1, BLOCK_SIZE_N))


@triton.jit(noinline=True)
def linear_tile_to_grouped(pid, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                           GROUP_SIZE_M: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def gemm_A16fW8O16f_kernel(
    a_ptr, b_ptr, c_ptr, scales_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, NUM_STAGES: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_k = tl.cdiv(K, BLOCK_SIZE_K)
    pid_m, pid_n = linear_tile_to_grouped(pid, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)

    a_ptrs = a_ptr + offs_am[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    scales = tl.load(scales_ptr + offs_bn, mask=offs_bn < N, other=0.0)

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, num_pid_k, num_stages=NUM_STAGES):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_bn[None, :] < N), other=0)
        b = dequantize(b, scales, BLOCK_SIZE_N)
        acc = tl.dot(a, b, acc=acc, out_dtype=tl.float32)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + offs_cm[:, None].to(tl.int64) * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@functools.lru_cache(maxsize=64)
def get_config(M, N, K):
    M_CLOSEST = triton.next_power_of_2(M)
    if M_CLOSEST <= 16:
        return {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                "NUM_STAGES": 2, "num_warps": 4, "num_stages": 2}
    return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
            "NUM_STAGES": 2, "num_warps": 4, "num_stages": 2}


def gemm_a16w8(x, W_q, scales):
    M, K = x.shape
    N = W_q.shape[1]
    output = torch.empty((M, N), device=x.device, dtype=x.dtype)
    config = get_config(M, N, K)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
    gemm_A16fW8O16f_kernel[grid](
        x, W_q, output, scales, M, N, K,
        x.stride(0), x.stride(1), W_q.stride(0), W_q.stride(1), output.stride(0), output.stride(1),
        **config,
    )
    return output


def run(x, W_q, scales):
    return gemm_a16w8(x, W_q, scales)
