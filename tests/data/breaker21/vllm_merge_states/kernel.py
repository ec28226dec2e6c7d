"""vLLM's Triton ``merge_attn_states`` (``vllm/attention/ops/triton_merge_attn_states.py``, Apache-2.0): two partial
attention outputs (a prefix's and a suffix's, split-KV) and their log-sum-exps merged, section 2.2 of
arXiv 2501.01005. One program a (token, head), the grid ``(num_tokens, num_query_heads)``; the kernel reads the
token and head counts back from ``tl.num_programs``; the head dimension one block ``padded_head_size =
triton.next_power_of_2(head_size)``, and every argument positional (``HEAD_SIZE`` / ``PADDED_HEAD_SIZE`` /
``OUTPUT_LSE`` constexprs, the last ``output_lse is not None``). An ``inf`` log-sum-exp (FA2's empty sequence) is
read as ``-inf``. vLLM's ``triton_jit_decorator`` (``vllm.triton_utils``) is ``triton.jit`` here."""

from typing import Optional

import torch
import triton
import triton.language as tl

triton_jit_decorator = triton.jit


# section 2.2 of https://www.arxiv.org/pdf/2501.01005: partial attention results of a split KV, merged
def merge_attn_states(
    output: torch.Tensor,
    prefix_output: torch.Tensor,
    prefix_lse: torch.Tensor,
    suffix_output: torch.Tensor,
    suffix_lse: torch.Tensor,
    output_lse: Optional[torch.Tensor] = None,
) -> None:
    num_tokens = output.shape[0]
    num_query_heads = output.shape[1]
    head_size = output.shape[2]
    padded_head_size = triton.next_power_of_2(head_size)

    # (the authors' TODO: a CUDA kernel would cost the CPU less)
    merge_attn_states_kernel[(num_tokens, num_query_heads)](
        output,
        output_lse,
        prefix_output,
        prefix_lse,
        suffix_output,
        suffix_lse,
        head_size,
        padded_head_size,
        output_lse is not None,
    )


@triton_jit_decorator
def merge_attn_states_kernel(
    output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    output_lse,  # [NUM_HEADS, NUM_TOKENS]
    prefix_output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    prefix_lse,  # [NUM_HEADS, NUM_TOKENS]
    suffix_output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    suffix_lse,  # [NUM_HEADS, NUM_TOKENS]
    HEAD_SIZE: tl.constexpr,
    PADDED_HEAD_SIZE: tl.constexpr,
    OUTPUT_LSE: tl.constexpr,
):
    token_idx = tl.program_id(0)
    num_tokens = tl.num_programs(0)
    head_idx = tl.program_id(1)
    num_heads = tl.num_programs(1)

    p_lse = tl.load(prefix_lse + head_idx * num_tokens + token_idx)
    s_lse = tl.load(suffix_lse + head_idx * num_tokens + token_idx)

    # FA2 gives +inf where the sum of exponentials is 0 (an empty sequence), FA3 -inf: an inf is taken as FA2's
    # and made -inf, the only meaning it can have here
    p_lse = float('-inf') if p_lse == float('inf') else p_lse
    s_lse = float('-inf') if s_lse == float('inf') else s_lse

    max_lse = tl.maximum(p_lse, s_lse)
    p_lse = p_lse - max_lse
    s_lse = s_lse - max_lse
    out_se = (tl.exp(p_lse) + tl.exp(s_lse))

    if OUTPUT_LSE:
        out_lse = tl.log(out_se) + max_lse
        tl.store(output_lse + head_idx * num_tokens + token_idx, out_lse)

    head_arange = tl.arange(0, PADDED_HEAD_SIZE)
    head_mask = head_arange < HEAD_SIZE
    p_out = tl.load(prefix_output + token_idx * num_heads * HEAD_SIZE +
                    head_idx * HEAD_SIZE + head_arange,
                    mask=head_mask)
    s_out = tl.load(suffix_output + token_idx * num_heads * HEAD_SIZE +
                    head_idx * HEAD_SIZE + head_arange,
                    mask=head_mask)

    # numerical stability (the authors' note): the scales first, then times the outputs; never the outputs times
    # exp(p_lse) or exp(s_lse) directly
    p_scale = tl.exp(p_lse) / out_se
    s_scale = tl.exp(s_lse) / out_se
    out = p_out * p_scale + s_out * s_scale
    tl.store(output + token_idx * num_heads * HEAD_SIZE +
             head_idx * HEAD_SIZE + head_arange,
             out,
             mask=head_mask)


def run(prefix_output, prefix_lse, suffix_output, suffix_lse):
    output = torch.empty_like(prefix_output)
    output_lse = torch.empty_like(prefix_lse)
    merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse)
    return output, output_lse
