"""Transformer Engine's Triton unpermute backward with merging probabilities
(``unpermute_with_mask_map_bwd_with_merging_probs``): one program a token (grid ``(num_tokens,)``), for each of its
``n_routed`` slots a ``while current_start < hidden_size:`` loop in ``BLOCK_SIZE`` steps writing the slot's input
gradient (``grad * prob``) and summing ``fwd_input * grad`` into the probability's gradient; the gradient row of
every expert zeroed first through ``tl.arange(0, PROBS_LOAD_WIDTH)`` (``next_power_of_2(num_experts)``, a width of
the expert axis, passed by keyword). ``BLOCK_SIZE`` is autotuned by a call after the definition inside ``try: ...
except RuntimeError: pass``, seven configs keyed on ``hidden_size``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _unpermute_bwd_with_merging_probs_kernel(
    fwd_output_grad_ptr,
    fwd_input_grad_ptr,
    fwd_input_ptr,
    merging_probs_ptr,
    merging_probs_grad_ptr,
    row_id_map_ptr,
    num_experts: tl.constexpr,
    hidden_size: tl.constexpr,
    stride_row_id_map_token,
    stride_row_id_map_expert,
    stride_fwd_output_grad_token,
    stride_fwd_output_grad_hidden,
    stride_fwd_input_grad_token,
    stride_fwd_input_grad_hidden,
    stride_fwd_input_token,
    stride_fwd_input_hidden,
    stride_merging_probs_token,
    stride_merging_probs_expert,
    stride_merging_probs_grad_token,
    stride_merging_probs_grad_expert,
    PROBS_LOAD_WIDTH: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    data_type = fwd_output_grad_ptr.dtype.element_ty
    compute_type = tl.float32

    pid = tl.program_id(0)
    map_load_off = tl.arange(0, PROBS_LOAD_WIDTH)
    token_probs_grad_off = pid * stride_merging_probs_grad_token + stride_merging_probs_grad_expert * map_load_off
    tl.store(merging_probs_grad_ptr + token_probs_grad_off, 0.0, mask=map_load_off < num_experts)
    n_routed = tl.load(row_id_map_ptr + pid * stride_row_id_map_token + num_experts * 2 * stride_row_id_map_expert)
    for idx in tl.range(n_routed):
        dst_row = tl.load(row_id_map_ptr + pid * stride_row_id_map_token + idx * stride_row_id_map_expert)
        expert_idx = tl.load(
            row_id_map_ptr + pid * stride_row_id_map_token + (num_experts + idx) * stride_row_id_map_expert
        )
        prob_grad_accum = tl.zeros((BLOCK_SIZE,), dtype=compute_type)
        current_start = 0
        while current_start < hidden_size:
            current_offset = current_start + tl.arange(0, BLOCK_SIZE)
            mask = current_offset < hidden_size
            input_off = pid * stride_fwd_output_grad_token + current_offset * stride_fwd_output_grad_hidden
            inp = tl.load(fwd_output_grad_ptr + input_off, mask=mask)
            inp = inp.to(compute_type)
            merging_prob_off = pid * stride_merging_probs_token + expert_idx * stride_merging_probs_expert
            merging_prob = tl.load(merging_probs_ptr + merging_prob_off).to(compute_type)
            output = inp * merging_prob
            output = output.to(data_type)
            output_off = dst_row * stride_fwd_input_grad_token + current_offset * stride_fwd_input_grad_hidden
            tl.store(fwd_input_grad_ptr + output_off, output, mask=mask)
            fwd_input_off = dst_row * stride_fwd_input_token + current_offset * stride_fwd_input_hidden
            fwd_input = tl.load(fwd_input_ptr + fwd_input_off, mask=mask)
            prob_grad_accum += fwd_input.to(compute_type) * inp
            current_start += BLOCK_SIZE
        probs_grad = tl.sum(prob_grad_accum).to(merging_probs_grad_ptr.dtype.element_ty)
        probs_grad_off = pid * stride_merging_probs_grad_token + expert_idx * stride_merging_probs_grad_expert
        tl.store(merging_probs_grad_ptr + probs_grad_off, probs_grad)


try:
    _unpermute_bwd_with_merging_probs_kernel = triton.autotune(
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
    )(_unpermute_bwd_with_merging_probs_kernel)
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


def unpermute_with_mask_map_bwd_with_merging_probs(
    fwd_output_grad, row_id_map, fwd_input, merging_probs, num_tokens, num_experts, num_out_tokens, hidden_size
):
    act_grad = torch.empty((num_out_tokens, hidden_size), dtype=fwd_output_grad.dtype, device=fwd_output_grad.device)
    merging_probs_grad = torch.empty((num_tokens, num_experts), dtype=merging_probs.dtype, device=merging_probs.device)
    grid = (num_tokens,)
    _unpermute_bwd_with_merging_probs_kernel[grid](
        fwd_output_grad,
        act_grad,
        fwd_input,
        merging_probs,
        merging_probs_grad,
        row_id_map,
        num_experts,
        hidden_size,
        row_id_map.stride(0),
        row_id_map.stride(1),
        fwd_output_grad.stride(0),
        fwd_output_grad.stride(1),
        act_grad.stride(0),
        act_grad.stride(1),
        fwd_input.stride(0),
        fwd_input.stride(1),
        merging_probs.stride(0),
        merging_probs.stride(1),
        merging_probs_grad.stride(0),
        merging_probs_grad.stride(1),
        PROBS_LOAD_WIDTH=triton.next_power_of_2(num_experts),
    )
    return act_grad, merging_probs_grad


def run(grad, fwd_input, routing_map, merging_probs):
    num_tokens, hidden_size = grad.shape
    num_experts = routing_map.shape[1]
    row_id_map = make_row_id_map(routing_map)
    return unpermute_with_mask_map_bwd_with_merging_probs(
        grad, row_id_map, fwd_input, merging_probs, num_tokens, num_experts, fwd_input.shape[0], hidden_size
    )
