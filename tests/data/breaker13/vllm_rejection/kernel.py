"""vLLM's speculative-decoding rejection sampler, its greedy path (v1/sample/rejection_sampler.py): the per-request
temperature spread over the request's draft tokens by ``expand_kernel`` (the greedy ``-1`` replaced by 1), then
``rejection_greedy_sample_kernel``: one program a request walks its draft tokens, writing the target's argmax until
the first mismatch and the bonus token when all match; ``is_greedy_ptr`` (``temperature == -1``) skips the others,
whose rows keep ``PLACEHOLDER_TOKEN_ID`` (their random path is not part of this cut). ``MAX_SPEC_LEN = 32`` a module
constant passed as ``MAX_NUM_TOKENS=MAX_SPEC_LEN`` ("to avoid recompilation"), the width of ``tl.arange`` that
covers a request's tokens; ``num_warps=1`` at both launches; ``@triton.jit(do_not_specialize=[...])``; a grid
``(batch_size,)``; int32 outputs."""

import torch
import triton
import triton.language as tl

PLACEHOLDER_TOKEN_ID: tl.constexpr = -1
GREEDY_TEMPERATURE: tl.constexpr = -1
# Maximum number of speculative draft tokens allowed per request in a single
# step. This value is chosen to be large enough to handle typical use cases.
MAX_SPEC_LEN = 32


@triton.jit(do_not_specialize=["max_spec_len"])
def rejection_greedy_sample_kernel(
    output_token_ids_ptr,  # [batch_size, max_spec_len + 1]
    cu_num_draft_tokens_ptr,  # [batch_size]
    draft_token_ids_ptr,  # [num_tokens]
    target_argmax_ptr,  # [num_tokens]
    bonus_token_ids_ptr,  # [batch_size]
    is_greedy_ptr,  # [batch_size] or None
    max_spec_len,
):
    req_idx = tl.program_id(0)
    # FIXME(woosuk): Because is_greedy_ptr is not None at profiling run,
    # re-compilation may happen during runtime when is_greedy_ptr is None.
    if is_greedy_ptr is None:
        is_greedy = True
    else:
        is_greedy = tl.load(is_greedy_ptr + req_idx)
    if not is_greedy:
        # Early exit for non-greedy sampling requests.
        return

    if req_idx == 0:
        start_idx = 0
    else:
        start_idx = tl.load(cu_num_draft_tokens_ptr + req_idx - 1)
    end_idx = tl.load(cu_num_draft_tokens_ptr + req_idx)
    num_draft_tokens = end_idx - start_idx

    rejected = False
    for pos in range(num_draft_tokens):
        if not rejected:
            draft_token_id = tl.load(draft_token_ids_ptr + start_idx + pos)
            target_argmax_id = tl.load(target_argmax_ptr + start_idx + pos)
            tl.store(output_token_ids_ptr + req_idx * (max_spec_len + 1) + pos, target_argmax_id)
            if draft_token_id != target_argmax_id:
                # Reject.
                rejected = True

    if not rejected:
        # If all tokens are accepted, append the bonus token.
        bonus_token_id = tl.load(bonus_token_ids_ptr + req_idx)
        tl.store(output_token_ids_ptr + req_idx * (max_spec_len + 1) + num_draft_tokens, bonus_token_id)


@triton.jit(do_not_specialize=["replace_from", "replace_to"])
def expand_kernel(
    output_ptr,  # [num_tokens]
    input_ptr,  # [batch_size]
    cu_num_tokens_ptr,  # [batch_size]
    replace_from,
    replace_to,
    MAX_NUM_TOKENS: tl.constexpr,
):
    req_idx = tl.program_id(0)
    if req_idx == 0:  # noqa: SIM108
        start_idx = 0
    else:
        start_idx = tl.load(cu_num_tokens_ptr + req_idx - 1)
    end_idx = tl.load(cu_num_tokens_ptr + req_idx)
    num_tokens = end_idx - start_idx

    src_val = tl.load(input_ptr + req_idx)
    src_val = tl.where(src_val == replace_from, replace_to, src_val)
    offset = tl.arange(0, MAX_NUM_TOKENS)
    tl.store(output_ptr + start_idx + offset, src_val, mask=offset < num_tokens)


def expand_batch_to_tokens(x, cu_num_tokens, num_tokens, replace_from=0, replace_to=0):
    """Expand [batch_size] tensor to [num_tokens] tensor based on the number of tokens per batch."""
    batch_size = x.shape[0]
    assert cu_num_tokens.shape[0] == batch_size
    expanded_x = x.new_empty(num_tokens)
    expand_kernel[(batch_size,)](
        expanded_x,
        x,
        cu_num_tokens,
        replace_from,
        replace_to,
        MAX_NUM_TOKENS=MAX_SPEC_LEN,  # To avoid recompilation.
        num_warps=1,
    )
    return expanded_x


def rejection_sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, target_logits,
                     bonus_token_ids, temperature):
    assert draft_token_ids.ndim == 1
    assert cu_num_draft_tokens.ndim == 1
    assert target_logits.ndim == 2
    batch_size = len(num_draft_tokens)
    num_tokens = draft_token_ids.shape[0]
    assert max_spec_len <= MAX_SPEC_LEN
    device = target_logits.device

    # Create output buffer.
    output_token_ids = torch.empty((batch_size, max_spec_len + 1), dtype=torch.int32, device=device)
    output_token_ids.fill_(PLACEHOLDER_TOKEN_ID)

    is_greedy = temperature == GREEDY_TEMPERATURE
    target_argmax = target_logits.argmax(dim=-1)
    rejection_greedy_sample_kernel[(batch_size,)](
        output_token_ids,
        cu_num_draft_tokens,
        draft_token_ids,
        target_argmax,
        bonus_token_ids,
        is_greedy,
        max_spec_len,
        num_warps=1,
    )
    # The random requests' logits are divided by their temperature (their sampling is not part of this cut).
    token_temperature = expand_batch_to_tokens(
        temperature, cu_num_draft_tokens, num_tokens, replace_from=GREEDY_TEMPERATURE, replace_to=1
    )
    return output_token_ids, token_temperature


def run(draft_token_ids, cu_num_draft_tokens, target_logits, bonus_token_ids, temperature):
    num_draft_tokens = torch.diff(cu_num_draft_tokens, prepend=cu_num_draft_tokens.new_zeros(1)).tolist()
    return rejection_sample(
        draft_token_ids, num_draft_tokens, max(num_draft_tokens), cu_num_draft_tokens, target_logits,
        bonus_token_ids, temperature,
    )
