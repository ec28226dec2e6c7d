"""vLLM's batched-experts MoE GEMM (``vllm/model_executor/layers/fused_moe/fused_batched_moe.py`` with
``try_get_optimal_moe_config`` / ``get_moe_configs`` / ``get_config_file_name`` / ``get_default_config`` of
``fused_moe.py``, Apache-2.0): tokens already grouped by expert as ``(E, max_num_tokens, K)`` (the pplx dispatch
layout), each expert's count in ``expert_num_tokens``; ``batched_triton_kernel`` over a grid ``(E, tiles of
max_num_tokens x tiles of N)`` exits early for an empty expert or a tile past its count, then calls the
``@triton.jit`` helpers ``expert_triton_kernel`` and ``moe_mmk`` (the K loop; ``% N`` wrapped columns). The launch
settings come from a JSON FILE keyed by the expert count, the width and the DEVICE NAME,
``configs/E={E},N={N},device_name={name}.json`` beside the module, read by an ``functools.lru_cache``d
``get_moe_configs`` (its entries keyed by a batch size: the nearest to M wins), else ``get_default_config``'s dict (by
``M <= E``); ``invoke_moe_batched_triton_kernel`` reads ``config['BLOCK_SIZE_M']`` / ``N`` / ``K`` into locals
passed by keyword (the file's ``GROUP_SIZE_M`` / ``num_warps`` / ``num_stages`` are never passed) and asserts
``max_num_tokens % BLOCK_M == 0``. ``run`` is ``BatchedTritonExperts.apply`` unquantized: MM1, SiLU-and-mul in torch
(vLLM's ``silu_and_mul`` op), MM2, both launches through the one config.

Cut to the unquantized path (the fp8 / int8 branches of ``moe_mmk`` kept as written); vLLM's ``current_platform``
is ``torch.cuda.get_device_name()`` off the interpreter and ``"cpu"`` on it (vLLM's CPU platform's name); ``torch.cuda.is_current_stream_capturing()`` in the assert
is asked only where CUDA is available (a CPU build of torch raises there); the workspaces are zeroed buffers (vLLM reuses uninitialised ones: rows past an expert's count are never written). Our
``configs/`` hold entries for the CPU, an H100 and an H200 at E=4, N=64 in vLLM's format."""

import functools
import json
import logging
import os
from typing import Any, Optional

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

logger = logging.getLogger(__name__)


@triton.jit
def moe_mmk(
    a_ptrs,
    b_ptrs,
    K,
    expert_id,
    a_scale_ptr,
    b_scale_ptr,
    # strides: how far a pointer moves for one element along a dimension
    stride_ak,
    stride_bk,
    stride_asm,
    stride_ask,
    stride_bse,
    stride_bsk,
    stride_bsn,
    # offsets and masks
    offs_m,
    offs_n,
    mask_m,
    # block-wise quantization's block
    group_n: tl.constexpr,
    group_k: tl.constexpr,
    # meta-parameters
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    compute_type: tl.constexpr,
    use_w8a8: tl.constexpr,
    use_w8a16: tl.constexpr,
):
    offs_k = tl.arange(0, BLOCK_K)

    if use_w8a16:
        b_scale_ptrs = b_scale_ptr + expert_id * stride_bse + offs_n[None, :] * stride_bsn
        b_scale = tl.load(b_scale_ptrs)

    if use_w8a8:
        # block-wise
        if group_k > 0 and group_n > 0:
            a_scale_ptrs = a_scale_ptr + offs_m * stride_asm
            offs_bsn = offs_n // group_n
            b_scale_ptrs = b_scale_ptr + expert_id * stride_bse + offs_bsn * stride_bsn
        # tensor-wise
        else:
            a_scale = tl.load(a_scale_ptr)
            b_scale = tl.load(b_scale_ptr + expert_id)

    # the C block, accumulated in fp32 and cast to the compute type after the loop
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        # the next blocks of A and B, masked along K
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        # accumulate along K
        if use_w8a16:
            accumulator = tl.dot(a, b.to(compute_type), acc=accumulator)
        elif use_w8a8:
            if group_k > 0 and group_n > 0:
                k_start = k * BLOCK_K
                offs_ks = k_start // group_k
                a_scale = tl.load(a_scale_ptrs + offs_ks * stride_ask, mask=mask_m, other=0.0)
                b_scale = tl.load(b_scale_ptrs + offs_ks * stride_bsk)

                accumulator += tl.dot(a, b) * a_scale[:, None] * b_scale[None, :]
            else:
                if use_w8a8:
                    # acc= lets fp8 accumulate fast
                    accumulator = tl.dot(a, b, acc=accumulator)
                else:
                    accumulator += tl.dot(a, b)
        else:
            accumulator += tl.dot(a, b)
        # the pointers to the next K block
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    if use_w8a16:
        accumulator = (accumulator * b_scale).to(compute_type)
    elif use_w8a8:
        if group_k > 0 and group_n > 0:
            accumulator = accumulator.to(compute_type)
        else:
            accumulator = (accumulator * a_scale * b_scale).to(compute_type)
    else:
        accumulator = accumulator.to(compute_type)

    return accumulator


@triton.jit
def expert_triton_kernel(
    a_ptr,  # [max_tokens, K]
    b_ptr,  # [K, N]
    c_ptr,  # [max_tokens, N]
    expert_id,
    compute_type: tl.constexpr,
    # sizes
    M,
    N,
    K,
    # quantization
    a_scale_ptr,
    b_scale_ptr,
    b_zp_ptr,
    # strides
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    stride_asm,
    stride_ask,
    stride_bse,
    stride_bsk,
    stride_bsn,
    # block-wise quantization
    group_n,
    group_k,
    # quantization schemes
    use_fp8_w8a8: tl.constexpr,
    use_int8_w8a16: tl.constexpr,
    # the kernel's config
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N) % N
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M

    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    accumulator = moe_mmk(
        a_ptrs,
        b_ptrs,
        K,
        expert_id,
        a_scale_ptr,
        b_scale_ptr,
        # strides
        stride_ak,
        stride_bk,
        stride_asm,
        stride_ask,
        stride_bse,
        stride_bsk,
        stride_bsn,
        # offsets and masks
        offs_m,
        offs_n,
        mask_m,
        # block-wise quantization's block
        group_n,
        group_k,
        # meta-parameters
        BLOCK_M,
        BLOCK_N,
        BLOCK_K,
        compute_type,
        use_fp8_w8a8,
        use_int8_w8a16,
    )

    # store into C
    offs_cn = tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    c_mask = mask_m[:, None] & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


@triton.jit
def batched_triton_kernel(
    a_ptr,  # [E, max_num_tokens, K]
    b_ptr,  # [E, K, N]
    c_ptr,  # [E, max_num_tokens, N]
    expert_num_tokens,  # [E]
    compute_type: tl.constexpr,
    # sizes
    max_num_tokens,
    K,
    N,
    # quantization
    a_scale_ptr,
    b_scale_ptr,
    b_zp_ptr,
    # strides: how far a pointer moves for one element along a dimension
    stride_ae,
    stride_am,
    stride_ak,
    stride_be,
    stride_bk,
    stride_bn,
    stride_ce,
    stride_cm,
    stride_cn,
    stride_asm,
    stride_ask,
    stride_bse,
    stride_bsk,
    stride_bsn,
    # block-wise quantization
    group_n: tl.constexpr,
    group_k: tl.constexpr,
    # quantization schemes
    use_fp8_w8a8: tl.constexpr,
    use_int8_w8a16: tl.constexpr,
    # the kernel's config
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    expert_id = tl.program_id(axis=0)
    e_num_tokens = tl.load(expert_num_tokens + expert_id)
    if e_num_tokens == 0:
        # nothing for this expert
        return

    pid_mn = tl.program_id(axis=1)
    # num_pid_m = tl.cdiv(max_num_tokens, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid_mn // num_pid_n
    pid_n = pid_mn % num_pid_n

    cta_m_start = pid_m * BLOCK_M
    cta_n_start = pid_n * BLOCK_N
    if cta_m_start >= e_num_tokens:
        # a tile past the expert's tokens
        return

    cta_m_size = min(BLOCK_M, e_num_tokens - cta_m_start)
    cta_n_size = min(BLOCK_N, N - cta_n_start)

    a_ptr = a_ptr + expert_id * stride_ae + cta_m_start * stride_am
    b_ptr = b_ptr + expert_id * stride_be + cta_n_start * stride_bn
    c_ptr = c_ptr + expert_id * stride_ce + cta_m_start * stride_cm + cta_n_start * stride_cn

    expert_triton_kernel(
        a_ptr,
        b_ptr,
        c_ptr,
        expert_id,
        compute_type,
        cta_m_size,  # M
        cta_n_size,  # N
        K,  # K
        a_scale_ptr,
        b_scale_ptr,
        b_zp_ptr,
        # strides
        stride_am,
        stride_ak,
        stride_bk,
        stride_bn,
        stride_cm,
        stride_cn,
        stride_asm,
        stride_ask,
        stride_bse,
        stride_bsk,
        stride_bsn,
        # block-wise quantization
        group_n,
        group_k,
        # quantization schemes
        use_fp8_w8a8,
        use_int8_w8a16,
        # the kernel's config
        BLOCK_M,
        BLOCK_N,
        BLOCK_K,
    )


def invoke_moe_batched_triton_kernel(
    A: torch.Tensor,  # [E, max_tokens, K]
    B: torch.Tensor,  # [E, K, N]
    C: torch.Tensor,  # [E, max_tokens, N]
    expert_num_tokens: torch.Tensor,  # [E]
    compute_type: tl.dtype,
    # quantization
    A_scale: torch.Tensor,
    B_scale: torch.Tensor,
    B_zp: torch.Tensor,
    # quantization schemes
    use_fp8_w8a8: bool,
    use_int8_w8a16: bool,
    use_int4_w4a16: bool,
    config: dict[str, int],
    block_shape: Optional[list[int]] = None,
):
    assert not use_int4_w4a16
    max_num_tokens = A.size(1)
    K = A.size(2)
    N = C.size(2)

    BLOCK_M = config["BLOCK_SIZE_M"]
    BLOCK_N = config["BLOCK_SIZE_N"]
    BLOCK_K = config["BLOCK_SIZE_K"]
    # (late38, v129) the launch counts tiles over the tokens padded to the largest tile a config names (a tile
    # past an expert's tokens returns at once), so the assert below holds for every config's BLOCK_M
    max_num_tokens = triton.cdiv(max_num_tokens, 64) * 64
    assert (
        torch.compiler.is_compiling()
        or (torch.cuda.is_available() and torch.cuda.is_current_stream_capturing())
        or max_num_tokens % BLOCK_M == 0
    )

    grid = (expert_num_tokens.size(0), triton.cdiv(max_num_tokens, BLOCK_M) * triton.cdiv(B.size(1), BLOCK_N))

    batched_triton_kernel[grid](
        A,
        B,
        C,
        expert_num_tokens,
        compute_type,
        # sizes
        max_num_tokens,
        K,
        N,
        # quantization
        A_scale,
        B_scale,
        B_zp,
        # strides
        A.stride(0),
        A.stride(1),
        A.stride(2),
        B.stride(0),
        B.stride(2),
        B.stride(1),
        C.stride(0),
        C.stride(1),
        C.stride(2),
        A_scale.stride(0) if A_scale is not None and A_scale.ndim == 2 else 0,
        A_scale.stride(1) if A_scale is not None and A_scale.ndim == 2 else 0,
        B_scale.stride(0) if B_scale is not None and B_scale.ndim >= 2 else 0,
        B_scale.stride(2) if B_scale is not None and B_scale.ndim == 3 else 0,
        B_scale.stride(1) if B_scale is not None and B_scale.ndim >= 2 else 0,
        # block-wise quantization
        0 if block_shape is None else block_shape[0],
        0 if block_shape is None else block_shape[1],
        # quantization schemes
        use_fp8_w8a8,
        use_int8_w8a16,
        # the kernel's config
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_K=BLOCK_K,
    )


# ------------------------------------------------------------------------------- fused_moe.py's config lookup


def get_device_name() -> str:
    """vLLM's ``current_platform.get_device_name()``: the CUDA device's name, ``"cpu"`` on the CPU platform."""
    if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        return torch.cuda.get_device_name()
    return "cpu"


def get_config_file_name(E: int, N: int, dtype: Optional[str], block_shape: Optional[list[int]] = None) -> str:
    device_name = get_device_name().replace(" ", "_")
    dtype_selector = "" if not dtype else f",dtype={dtype}"
    block_shape_selector = ("" if not block_shape or not all(block_shape) else f",block_shape={block_shape}").replace(
        " ", ""
    )
    return f"E={E},N={N},device_name={device_name}{dtype_selector}{block_shape_selector}.json"  # noqa: E501


@functools.lru_cache
def get_moe_configs(
    E: int,
    N: int,
    dtype: Optional[str],
    block_n: Optional[int] = None,
    block_k: Optional[int] = None,
) -> Optional[dict[int, Any]]:
    """
    The tuned configurations of the fused MoE kernel: a dict from an irregular grid of batch sizes to a kernel
    configuration. At a batch size bs, the grid's nearest batch size gives the configuration.
    """

    # a tuned file in the configs folder first
    json_file_name = get_config_file_name(E, N, dtype, [block_n, block_k])

    config_file_path = os.path.join(os.path.dirname(os.path.realpath(__file__)), "configs", json_file_name)
    if os.path.exists(config_file_path):
        with open(config_file_path) as f:
            logger.info("Using configuration from %s for MoE layer.", config_file_path)
            # the tuned file's entries
            return {int(key): val for key, val in json.load(f).items()}

    # no tuned file: the default configuration
    logger.warning("Using default MoE config. Performance might be sub-optimal! Config file not found at %s",
                   config_file_path)
    return None


def get_default_config(
    M: int,
    E: int,
    N: int,
    K: int,
    topk: int,
    dtype: Optional[str],
    is_marlin: bool,
    block_shape: Optional[list[int]] = None,
) -> dict[str, int]:
    if dtype == "fp8_w8a8" and block_shape is not None:
        # the fp8 block GEMM's N and K blocks are the quantization block
        config = {
            "BLOCK_SIZE_M": 64,
            "BLOCK_SIZE_N": block_shape[0],
            "BLOCK_SIZE_K": block_shape[1],
            "GROUP_SIZE_M": 32,
            "num_warps": 4,
            "num_stages": 3,
        }
    else:
        config = {
            "BLOCK_SIZE_M": 64,
            "BLOCK_SIZE_N": 64,
            "BLOCK_SIZE_K": 32,
            "GROUP_SIZE_M": 8,
        }
        # a heuristic: fused marlin is faster with this config at small M
        if M <= E or (is_marlin and M <= 32):
            config = {
                "BLOCK_SIZE_M": 16,
                "BLOCK_SIZE_N": 32,
                "BLOCK_SIZE_K": 64,
                "GROUP_SIZE_M": 1,
            }
    return config


def try_get_optimal_moe_config(
    w1_shape: tuple[int, ...],
    w2_shape: tuple[int, ...],
    top_k: int,
    dtype: Optional[str],
    M: int,
    is_marlin: bool = False,
    block_shape: Optional[list[int]] = None,
):
    # the tuned file's entry nearest M, else the default
    E, _, N = w2_shape
    if dtype == "int4_w4a16":
        N = N * 2
    block_n = block_shape[0] if block_shape else 0
    block_k = block_shape[1] if block_shape else 0
    configs = get_moe_configs(E, N, dtype, block_n, block_k)

    if configs:
        # the entry nearest M
        config = configs[min(configs.keys(), key=lambda x: abs(x - M))]
    else:
        # the default configuration
        config = get_default_config(M, E, N, w1_shape[2], top_k, dtype, is_marlin, block_shape)
    return config


def run(hidden_states, w1, w2, expert_num_tokens):
    """``BatchedTritonExperts.apply`` unquantized: hidden_states (E, max_tokens, K), w1 (E, 2N, K), w2 (E, K, N)."""
    E, num_tokens, K = hidden_states.shape
    N = w1.size(1)
    assert hidden_states.size(-1) == w1.size(2), f"Hidden size mismatch {hidden_states.size(-1)} != {w1.size(2)}"
    assert hidden_states.is_contiguous(), "Hidden_states must be contiguous"
    assert w1.stride(-1) == 1, "Stride of last dimension must be 1"
    assert w2.stride(-1) == 1, "Stride of last dimension must be 1"
    config = try_get_optimal_moe_config(w1.size(), w2.size(), 1, None, num_tokens)
    compute_type = tl.float16 if hidden_states.dtype == torch.float16 else tl.bfloat16
    intermediate_cache1 = torch.zeros((E, num_tokens, N), device=hidden_states.device, dtype=hidden_states.dtype)
    intermediate_cache3 = torch.zeros((E, num_tokens, K), device=hidden_states.device, dtype=hidden_states.dtype)
    # MM1
    invoke_moe_batched_triton_kernel(
        A=hidden_states, B=w1, C=intermediate_cache1, expert_num_tokens=expert_num_tokens,
        compute_type=compute_type, A_scale=None, B_scale=None, B_zp=None, use_fp8_w8a8=False,
        use_int8_w8a16=False, use_int4_w4a16=False, config=config, block_shape=None,
    )
    # vLLM's silu_and_mul
    intermediate_cache2 = F.silu(intermediate_cache1[..., : N // 2]) * intermediate_cache1[..., N // 2 :]
    invoke_moe_batched_triton_kernel(
        A=intermediate_cache2.contiguous(), B=w2, C=intermediate_cache3, expert_num_tokens=expert_num_tokens,
        compute_type=compute_type, A_scale=None, B_scale=None, B_zp=None, use_fp8_w8a8=False,
        use_int8_w8a16=False, use_int4_w4a16=False, config=config, block_shape=None,
    )
    return intermediate_cache3
