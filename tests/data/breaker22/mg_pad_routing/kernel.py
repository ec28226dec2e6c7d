"""Megatron-LM's ``fused_pad_routing_map`` (``megatron/core/fusions/fused_pad_routing_map.py``, NVIDIA, Apache-2.0
with Megatron's BSD-style notice): each expert's row of a (tokens x experts) routing map padded with ones so that the
expert's token count becomes a multiple of ``pad_multiple`` (the first zeros of the row flipped, by their rank from
``tl.cumsum``). One program an expert, the whole row ONE block (``BLOCK_SIZE = triton.next_power_of_2(num_tokens)``,
a local passed by keyword), ``pad_multiple`` a ``tl.constexpr`` passed positionally; the module's triton import with
Megatron's ``MagicMock`` fallback and ``HAVE_TRITON = tl.constexpr(...)`` kept. Megatron's ``jit_fuser`` (its
``torch.compile`` switch) is Megatron's disabled state here, ``noop_decorator``, and ``null_decorator`` is
``megatron.core.utils``' own."""

from unittest.mock import MagicMock

import torch
from packaging import version


def null_decorator(*args, **kwargs):
    """A decorator that does nothing (megatron.core.utils)."""
    if len(kwargs) == 0 and len(args) == 1 and callable(args[0]):
        return args[0]
    else:

        def inner(func):
            return func

        return inner


def noop_decorator(func):
    '''No-op decorator (megatron.core.jit, the fuser disabled)'''
    return func


jit_fuser = noop_decorator

try:
    import triton
    import triton.language as tl

    if version.parse(triton.__version__) < version.parse("3.4.0") and not torch.cuda.is_available():
        HAVE_TRITON = False
    else:
        HAVE_TRITON = tl.constexpr(version.parse(triton.__version__) >= version.parse("2.0.0"))
except ImportError:
    HAVE_TRITON = False

if not HAVE_TRITON:
    triton = MagicMock()
    triton.jit = null_decorator
    triton.autotune = null_decorator
    triton.heuristics = null_decorator
    tl = MagicMock()


@triton.jit
def _pad_routing_map_kernel(
    routing_map_ptr, output_ptr, num_tokens, pad_multiple: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    expert_idx = tl.program_id(axis=0)

    # the expert's row in the input and the output
    row_offset = expert_idx * num_tokens
    input_row_ptr = routing_map_ptr + row_offset
    output_row_ptr = output_ptr + row_offset

    # the block's token indices
    token_indices = tl.arange(0, BLOCK_SIZE)
    token_mask = token_indices < num_tokens

    # the expert's row, zero past its end
    row = tl.load(input_row_ptr + token_indices, mask=token_mask, other=0)

    # 1. how many tokens the expert has (the row summed as int32)
    num_ones = tl.sum(row.to(tl.int32), axis=0)

    # 2. how many the expert is short of the next multiple
    remainder = num_ones % pad_multiple
    num_to_pad = tl.where(remainder != 0, pad_multiple - remainder, 0)

    # 3. the rank of each zero in the row (an int32 cumsum)
    is_zero = row == 0
    zero_ranks = tl.cumsum(is_zero.to(tl.int32), axis=0)

    # 4. the zeros to flip: the first num_to_pad of them
    mask_to_flip = (zero_ranks <= num_to_pad) & is_zero

    # 5. the padded row
    output_row = tl.where(mask_to_flip, 1, row)

    # 6. stored inside the row only
    tl.store(output_row_ptr + token_indices, output_row, mask=token_mask)


@jit_fuser
def fused_pad_routing_map(routing_map: torch.Tensor, pad_multiple: int) -> torch.Tensor:
    """Fused version of pad_routing_map.
    Args:
        routing_map (torch.Tensor): A boolean or integer tensor of shape [num_tokens,
            num_experts] indicating which tokens are routed to which experts.
        pad_multiple (int): The multiple to pad each expert's token count to.

    Returns:
        torch.Tensor: The padded routing map of shape [num_tokens, num_experts].
    """
    num_tokens, num_experts = routing_map.shape
    if num_tokens == 0:
        return routing_map

    input_map = routing_map.transpose(0, 1).contiguous().int()  # [num_experts, num_tokens]

    output_map = torch.empty_like(input_map)

    # one program an expert
    grid = (num_experts,)
    BLOCK_SIZE = triton.next_power_of_2(num_tokens)

    _pad_routing_map_kernel[grid](
        input_map, output_map, num_tokens, pad_multiple, BLOCK_SIZE=BLOCK_SIZE
    )

    return output_map.transpose(0, 1)  # [num_tokens, num_experts]


def run(routing_map):
    """The map padded to multiples of 16 tokens an expert (an fp8 GEMM's alignment), as a bool map again."""
    return fused_pad_routing_map(routing_map, 16).bool()
