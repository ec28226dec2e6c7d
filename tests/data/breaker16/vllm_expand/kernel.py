"""vLLM's rejection sampler ``expand_kernel`` (vllm/v1/sample/rejection_sampler.py): each request's value copied to
every one of its tokens, ``cu_num_tokens`` the running count; ``@triton.jit(do_not_specialize=["replace_from",
"replace_to"])``, a value equal to ``replace_from`` written as ``replace_to``; the block ``MAX_NUM_TOKENS`` is the
module constant ``MAX_SPEC_LEN = 32`` (the most draft tokens a request may carry: it must cover every request's
tokens); the kernel launched at TWO call sites with different constants (temperatures: greedy ``-1.0`` becomes
``1.0``; seeds: ``0`` stays ``0``)."""

import torch
import triton
import triton.language as tl

MAX_SPEC_LEN = 32
GREEDY_TEMPERATURE: tl.constexpr = -1


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
    )
    return expanded_x


def run(temperature, seeds, cu_num_tokens, num_tokens):
    num_tokens = int(num_tokens.item())
    temps = expand_batch_to_tokens(
        temperature, cu_num_tokens, num_tokens, replace_from=GREEDY_TEMPERATURE, replace_to=1
    )
    expanded_seeds = expand_batch_to_tokens(seeds, cu_num_tokens, num_tokens)
    return temps, expanded_seeds
