"""Fused MoE as vLLM writes it: ``fused_moe_kernel`` over token slots sorted by expert and padded to whole
``BLOCK_SIZE_M`` blocks (``moe_align_block_size``), a 1-D grid in the grouped order (``GROUP_SIZE_M``), launched by
``invoke_fused_moe_kernel(..., config, ...)`` with ``**config`` and a grid ``lambda META``. The config comes from
``try_get_optimal_moe_config``: a tuned JSON file per (E, N, device) when one exists (none here), else
``get_default_config``'s dict, chosen by the number of tokens against the number of experts; the function is bound
by ``functools.partial`` and called with M, as ``fused_experts`` does. One matmul (the routed weights applied) and
the top-k sum."""

import functools

import torch
import triton
import triton.language as tl


@triton.jit
def fused_moe_kernel(
    a_ptr, b_ptr, c_ptr, topk_weights_ptr, sorted_token_ids_ptr, expert_ids_ptr, num_tokens_post_padded_ptr,
    N, K, EM, num_valid_tokens,
    stride_am, stride_ak, stride_be, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, MUL_ROUTED_WEIGHT: tl.constexpr, top_k: tl.constexpr, compute_type: tl.constexpr,
):
    # map program ids to the block of C it computes, grouped for L2 reuse
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(EM, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BLOCK_SIZE_M >= num_tokens_post_padded:
        return
    offs_token_id = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M).to(tl.int64)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id)
    token_mask = offs_token < num_valid_tokens

    off_experts = tl.load(expert_ids_ptr + pid_m).to(tl.int64)
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N).to(tl.int64)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_token[:, None] // top_k * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + off_experts * stride_be + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BLOCK_SIZE_K), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    if MUL_ROUTED_WEIGHT:
        moe_weight = tl.load(topk_weights_ptr + offs_token, mask=token_mask, other=0)
        accumulator = accumulator * moe_weight[:, None]
    accumulator = accumulator.to(compute_type)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_token[:, None] + stride_cn * offs_cn[None, :]
    c_mask = token_mask[:, None] & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


def moe_align_block_size(topk_ids, block_size, num_experts):
    """Token slots sorted by expert, each expert's run padded to a multiple of ``block_size`` with the sentinel
    ``topk_ids.numel()``; the expert of each block; the padded length (a one-element tensor)."""
    flat = topk_ids.flatten()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=num_experts)
    sorted_ids, expert_ids, start = [], [], 0
    for e in range(num_experts):
        n = int(counts[e])
        padded = triton.cdiv(n, block_size) * block_size
        ids = torch.full((padded,), flat.numel(), dtype=torch.int32, device=flat.device)
        ids[:n] = order[start:start + n].to(torch.int32)
        start += n
        sorted_ids.append(ids)
        expert_ids += [e] * (padded // block_size)
    sorted_ids = torch.cat(sorted_ids)
    num_post_pad = torch.tensor([sorted_ids.numel()], dtype=torch.int32, device=flat.device)
    return sorted_ids, torch.tensor(expert_ids, dtype=torch.int32, device=flat.device), num_post_pad


def invoke_fused_moe_kernel(A, B, C, topk_weights, sorted_token_ids, expert_ids, num_tokens_post_padded,
                            mul_routed_weight, top_k, config, compute_type):
    EM = sorted_token_ids.shape[0]
    grid = lambda META: (triton.cdiv(EM, META["BLOCK_SIZE_M"]) * triton.cdiv(B.shape[1], META["BLOCK_SIZE_N"]),)  # noqa: E731
    fused_moe_kernel[grid](
        A, B, C, topk_weights, sorted_token_ids, expert_ids, num_tokens_post_padded,
        B.shape[1], B.shape[2], EM, topk_weights.numel(),
        A.stride(0), A.stride(1), B.stride(0), B.stride(2), B.stride(1), C.stride(1), C.stride(2),
        MUL_ROUTED_WEIGHT=mul_routed_weight, top_k=top_k, compute_type=compute_type,
        **config,
    )


def get_config_file_name(E, N, dtype):
    return f"E={E},N={N},dtype={dtype}.json"


@functools.lru_cache
def get_moe_configs(E, N, dtype):
    """The tuned configs of a JSON file by number of tokens; None when no file was tuned for this device."""
    return None


def get_default_config(M, E, N, K, topk, dtype):
    if M <= E:
        config = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1}
    else:
        config = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
    return config


def try_get_optimal_moe_config(w1_shape, w2_shape, top_k, dtype, M):
    E, N, _ = w2_shape
    configs = get_moe_configs(E, N, dtype)
    if configs:
        config = configs[min(configs.keys(), key=lambda x: abs(x - M))]
    else:
        config = get_default_config(M, E, N, w1_shape[2], top_k, dtype)
    return config


def run(hidden_states, w1, topk_weights, topk_ids):
    M, _ = hidden_states.shape
    E, N, _ = w1.shape
    top_k = topk_ids.shape[1]
    get_config_func = functools.partial(try_get_optimal_moe_config, w1.shape, w1.shape, top_k, None)
    config = get_config_func(M)
    sorted_token_ids, expert_ids, num_tokens_post_padded = moe_align_block_size(topk_ids, config["BLOCK_SIZE_M"], E)
    cache = torch.empty((M, top_k, N), device=hidden_states.device, dtype=hidden_states.dtype)
    invoke_fused_moe_kernel(hidden_states, w1, cache, topk_weights, sorted_token_ids, expert_ids,
                            num_tokens_post_padded, True, top_k, config, compute_type=tl.float32)
    return cache.sum(dim=1)
