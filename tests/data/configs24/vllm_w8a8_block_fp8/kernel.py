"""vLLM's Triton block-scaled fp8 GEMM (``vllm/model_executor/layers/quantization/utils/fp8_utils.py``, Apache-2.0;
adapted there from SGLang) WITH ITS AUTHORS' CONFIG FILES: ``configs/`` holds vLLM's own tuned tables for
N=2048, K=512 on an H100 (``device_name=NVIDIA_H100_80GB_HBM3``) and an H200 (``device_name=NVIDIA_H200``), 18
entries each keyed by a batch size M (1 ... 4096), byte for byte as vLLM ships them
(``vllm/model_executor/layers/quantization/utils/configs/N=2048,K=512,device_name=...,dtype=fp8_w8a8,block_shape=[128,128].json``).
``w8a8_triton_block_scaled_mm`` reads them through the ``lru_cache``d ``get_w8a8_block_fp8_configs`` (a file named by
N, K, the DEVICE NAME and the quantization block; its keys made ints by a dict comprehension over ``json.load``), takes
the entry nearest M (``configs[min(configs.keys(), key=lambda x: abs(x - M))]``), else a literal default whose
``BLOCK_SIZE_N`` / ``BLOCK_SIZE_K`` are the quantization block; splats ``**config`` (``num_warps`` / ``num_stages``
in it) with a named ``def grid(META)``. A scales one a row and ``group_k`` columns, B's one a ``group_n`` x ``group_k``
block (``offs_ks = k_start // group_k``: one scale a K tile, so ``BLOCK_SIZE_K`` must divide ``group_k``'s multiple);
``% M`` / ``% N`` wrapped offsets; the K tail masked; the output dtype chosen in the kernel.

The kernel and launch code as vLLM's main has them (the same cut as tests/data/breaker20/vllm_block_fp8, whose one
configs file was ours). One change: ``current_platform.get_device_name()`` is torch's CUDA device name here, "cpu" off a
GPU and under Triton's interpreter (no file names the CPU: the default dict runs there), the logger left out."""

import functools
import json
import os
from typing import Any

import torch
import triton
import triton.language as tl


def get_device_name() -> str:
    """vLLM's ``current_platform.get_device_name()``: the CUDA device's name, ``"cpu"`` off a GPU."""
    if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        return torch.cuda.get_device_name()
    return "cpu"


@triton.jit
def _w8a8_triton_block_scaled_mm(
    # Pointers to inputs and output
    A,
    B,
    C,
    As,
    Bs,
    # Shape for matmul
    M,
    N,
    K,
    # Block size for block-wise quantization
    group_n,
    group_k,
    # Stride for inputs and output
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    stride_As_m,
    stride_As_k,
    stride_Bs_k,
    stride_Bs_n,
    # Meta-parameters
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    """C = (A * As) @ (B * Bs) with block-wise scales, in the output's dtype."""

    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = A + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = B + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    As_ptrs = As + offs_am * stride_As_m
    offs_bsn = offs_bn // group_n
    Bs_ptrs = Bs + offs_bsn * stride_Bs_n

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)

        k_start = k * BLOCK_SIZE_K
        offs_ks = k_start // group_k
        a_s = tl.load(As_ptrs + offs_ks * stride_As_k)
        b_s = tl.load(Bs_ptrs + offs_ks * stride_Bs_k)

        accumulator += tl.dot(a, b) * a_s[:, None] * b_s[None, :]
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    if C.dtype.element_ty == tl.bfloat16:
        c = accumulator.to(tl.bfloat16)
    elif C.dtype.element_ty == tl.float16:
        c = accumulator.to(tl.float16)
    else:
        c = accumulator.to(tl.float32)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = C + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@functools.lru_cache
def get_w8a8_block_fp8_configs(
    N: int, K: int, block_n: int, block_k: int
) -> dict[int, Any] | None:
    """
    Tuned settings for the w8a8 block fp8 kernel: a dict from an irregular grid of batch sizes to settings (the
    nearest batch size's taken), or None where no file names this device, N, K and block.
    """

    # a tuned file in the configs folder first
    device_name = get_device_name().replace(" ", "_")
    json_file_name = f"N={N},K={K},device_name={device_name},dtype=fp8_w8a8,block_shape=[{block_n},{block_k}].json"  # noqa: E501

    config_file_path = os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "configs", json_file_name
    )
    if os.path.exists(config_file_path):
        with open(config_file_path) as f:
            # a tuned configuration for these sizes and this device
            return {int(key): val for key, val in json.load(f).items()}

    # else the default settings below
    return None


def w8a8_triton_block_scaled_mm(
    A: torch.Tensor,
    B: torch.Tensor,
    As: torch.Tensor,
    Bs: torch.Tensor,
    block_size: list[int],
    output_dtype: torch.dtype = torch.float16,
) -> torch.Tensor:
    """A @ B.T with block-wise quantization: A [M, K] fp8 with As [M, cdiv(K, block_k)], B [N, K] fp8 with Bs
    [cdiv(N, block_n), cdiv(K, block_k)]; block_size [block_n, block_k]; the result in ``output_dtype``."""
    assert len(block_size) == 2
    block_n, block_k = block_size[0], block_size[1]

    assert A.shape[-1] == B.shape[-1]
    assert A.shape[:-1] == As.shape[:-1] and A.is_contiguous()
    assert triton.cdiv(A.shape[-1], block_k) == As.shape[-1]
    M = A.numel() // A.shape[-1]

    assert B.ndim == 2 and Bs.ndim == 2
    N, K = B.shape
    assert triton.cdiv(N, block_n) == Bs.shape[0]
    assert triton.cdiv(K, block_k) == Bs.shape[1]

    C_shape = A.shape[:-1] + (N,)
    C = A.new_empty(C_shape, dtype=output_dtype)

    configs = get_w8a8_block_fp8_configs(N, K, block_size[0], block_size[1])
    if configs:
        # the tuned entry nearest M
        config = configs[min(configs.keys(), key=lambda x: abs(x - M))]
    else:
        # Default config
        # Block-wise quant: BLOCK_SIZE_N must be divisible by block_size[0]
        # BLOCK_SIZE_K must be divisible by block_size[1]
        config = {
            "BLOCK_SIZE_M": 64,
            "BLOCK_SIZE_N": block_size[0],
            "BLOCK_SIZE_K": block_size[1],
            "GROUP_SIZE_M": 32,
            "num_warps": 4,
            "num_stages": 2,
        }

    def grid(META):
        return (
            triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),
        )

    _w8a8_triton_block_scaled_mm[grid](
        A,
        B,
        C,
        As,
        Bs,
        M,
        N,
        K,
        block_n,
        block_k,
        A.stride(-2),
        A.stride(-1),
        B.stride(1),
        B.stride(0),
        C.stride(-2),
        C.stride(-1),
        As.stride(-2),
        As.stride(-1),
        Bs.stride(1),
        Bs.stride(0),
        **config,
    )

    return C


def run(A, B, As, Bs):
    return w8a8_triton_block_scaled_mm(A, B, As, Bs, [128, 128], output_dtype=torch.bfloat16)
