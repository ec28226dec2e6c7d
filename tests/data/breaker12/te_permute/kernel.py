"""Transformer Engine's Triton MoE permutation (``permute_with_mask_map``): each token's row copied to every
expert slot the routing sends it to. ``row_id_map`` is (tokens, 2 * experts + 1): the first ``n_routed`` entries the
destination rows, the next ``n_routed`` their experts, the last ``n_routed``; the kernel walks them with
``tl.range(n_routed)`` (a loop bound loaded from memory) and carries each slot's probability along. The autotune is
applied by a call after the definition, inside ``try: ... except RuntimeError: pass`` (TE's form), seven
``BLOCK_SIZE`` configs keyed on ``hidden_size``; the grid is ``lambda META: (num_tokens, cdiv(hidden_size,
META["BLOCK_SIZE"]))``. The map is built here in torch (TE builds it with three more kernels)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _permute_kernel(
    input_ptr,
    output_ptr,
    row_id_map_ptr,
    probs_ptr,
    permuted_probs_ptr,
    num_experts: tl.constexpr,
    hidden_size: tl.constexpr,
    stride_row_id_map_token,
    stride_row_id_map_expert,
    stride_input_token,
    stride_input_hidden,
    stride_output_token,
    stride_output_hidden,
    stride_probs_token,
    stride_probs_expert,
    stride_permuted_probs_token,
    PERMUTE_PROBS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    pid_t = tl.program_id(0)
    pid_h = tl.program_id(1)
    cur_off = pid_h * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cur_off < hidden_size
    inp = tl.load(input_ptr + pid_t * stride_input_token + cur_off * stride_input_hidden, mask=mask)
    map_row = row_id_map_ptr + pid_t * stride_row_id_map_token
    n_routed = tl.load(map_row + num_experts * 2 * stride_row_id_map_expert)
    for idx in tl.range(n_routed):
        dst_row = tl.load(map_row + idx * stride_row_id_map_expert)
        output_off = dst_row * stride_output_token + cur_off * stride_output_hidden
        if PERMUTE_PROBS:
            expert_idx = tl.load(map_row + (num_experts + idx) * stride_row_id_map_expert)
            prob = tl.load(probs_ptr + pid_t * stride_probs_token + expert_idx * stride_probs_expert)
            if pid_h == 0:
                tl.store(permuted_probs_ptr + dst_row * stride_permuted_probs_token, prob)
            if prob == 0.0:
                tl.store(output_ptr + output_off, 0.0, mask=mask)
            else:
                tl.store(output_ptr + output_off, inp, mask=mask)
        else:
            tl.store(output_ptr + output_off, inp, mask=mask)


try:
    _permute_kernel = triton.autotune(
        configs=[
            triton.Config({"BLOCK_SIZE": 64}),
            triton.Config({"BLOCK_SIZE": 128}),
            triton.Config({"BLOCK_SIZE": 256}),
            triton.Config({"BLOCK_SIZE": 512}),
            triton.Config({"BLOCK_SIZE": 1024}),
            triton.Config({"BLOCK_SIZE": 2048}),
            triton.Config({"BLOCK_SIZE": 4096}),
        ],
        key=["hidden_size"],
    )(_permute_kernel)
except RuntimeError:
    pass


def make_row_id_map(routing_map):
    """Expert-major destination rows: expert e's tokens, in token order, after experts 0..e-1's."""
    num_tokens, num_experts = routing_map.shape
    routed = routing_map.t().reshape(-1).to(torch.int64)
    dest = (torch.cumsum(routed, 0) - 1).reshape(num_experts, num_tokens).t()
    experts = torch.arange(num_experts, device=routing_map.device)
    order = torch.where(routing_map, experts, experts + num_experts).argsort(dim=1)  # routed experts first
    n_routed = routing_map.sum(1, keepdim=True)
    live = experts[None, :] < n_routed
    row_id_map = torch.empty((num_tokens, 2 * num_experts + 1), dtype=torch.int32, device=routing_map.device)
    row_id_map[:, :num_experts] = torch.where(live, dest.gather(1, order), -1)
    row_id_map[:, num_experts : 2 * num_experts] = torch.where(live, order, -1)
    row_id_map[:, 2 * num_experts] = n_routed[:, 0]
    return row_id_map


def permute_with_mask_map(inp, row_id_map, probs, num_tokens, num_experts, num_out_tokens, hidden_size):
    output = torch.empty((num_out_tokens, hidden_size), dtype=inp.dtype, device=inp.device)
    if probs is not None:
        permuted_probs = torch.empty((num_out_tokens,), dtype=probs.dtype, device=inp.device)
    else:
        permuted_probs = None
    grid = lambda META: (num_tokens, triton.cdiv(hidden_size, META["BLOCK_SIZE"]))  # noqa: E731
    _permute_kernel[grid](
        inp,
        output,
        row_id_map,
        probs,
        permuted_probs,
        num_experts,
        hidden_size,
        row_id_map.stride(0),
        row_id_map.stride(1),
        inp.stride(0),
        inp.stride(1),
        output.stride(0),
        output.stride(1),
        probs.stride(0) if probs is not None else None,
        probs.stride(1) if probs is not None else None,
        permuted_probs.stride(0) if permuted_probs is not None else None,
        PERMUTE_PROBS=probs is not None,
    )
    return output, permuted_probs


def run(inp, routing_map, probs):
    num_tokens, hidden_size = inp.shape
    num_experts = routing_map.shape[1]
    row_id_map = make_row_id_map(routing_map)
    num_out_tokens = int(routing_map.sum())
    return permute_with_mask_map(inp, row_id_map, probs, num_tokens, num_experts, num_out_tokens, hidden_size)
