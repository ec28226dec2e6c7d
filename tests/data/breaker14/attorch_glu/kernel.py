"""attorch's gated linear unit forward (``glu_forward_kernel``): the input chunked in two along ``dim``, each half
made ``.contiguous()``, ``output = input1 * act(input2)``; the activation a STRING constexpr (``act_func:
tl.constexpr``, 'gelu' here) dispatched by an ``if`` / ``elif`` chain in a ``@triton.jit`` helper; ``param`` a plain
float; ``@triton.autotune(configs=element_wise_kernel_configs(), key=["size"])``, the list from a helper whose block's
NAME is its argument (``block_name: str = "BLOCK_SIZE"``, ``triton.Config({block_name: 64}, num_warps=2)`` ...);
grid ``lambda META: (cdiv(size, META["BLOCK_SIZE"]),)`` with ``from triton import cdiv``; launched in the forward of
a ``torch.autograd.Function``, ``act_func`` passed positionally."""

from typing import List

import torch
import triton
import triton.language as tl
from triton import cdiv


def element_wise_kernel_configs(block_name: str = "BLOCK_SIZE") -> List[triton.Config]:
    """Kernel configurations for element-wise operations; ``block_name`` names the block argument."""
    return [
        triton.Config({block_name: 64}, num_warps=2),
        triton.Config({block_name: 128}, num_warps=2),
        triton.Config({block_name: 256}, num_warps=4),
        triton.Config({block_name: 512}, num_warps=4),
        triton.Config({block_name: 1024}, num_warps=4),
    ]


@triton.jit
def sigmoid(input):
    return 1 / (1 + tl.exp(-input))


@triton.jit
def gelu(input):
    cdf = 0.5 * (1 + tl.math.erf(0.707106781 * input))
    return cdf * input


@triton.jit
def silu(input):
    return input * sigmoid(input)


@triton.jit
def leaky_relu(input, negative_slope):
    return tl.where(input >= 0, input, negative_slope * input)


@triton.jit
def apply_act_func(input, param, act_func: tl.constexpr):
    if act_func == "sigmoid":
        input = input.to(tl.float32)
        output = sigmoid(input)
    elif act_func == "gelu":
        input = input.to(tl.float32)
        output = gelu(input)
    elif act_func == "silu":
        input = input.to(tl.float32)
        output = silu(input)
    elif act_func == "leaky_relu":
        output = leaky_relu(input, param)
    return output


@triton.autotune(
    configs=element_wise_kernel_configs(),
    key=["size"],
)
@triton.jit
def glu_forward_kernel(
    input1_pointer,
    input2_pointer,
    output_pointer,
    size,
    param,
    act_func: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offset < size

    input1 = tl.load(input1_pointer + offset, mask=mask)
    input2 = tl.load(input2_pointer + offset, mask=mask)

    output = input1 * apply_act_func(input2, param, act_func)
    tl.store(output_pointer + offset, output, mask=mask)


class GLUAutoGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, dim=-1, act_func="sigmoid", param=None):
        input1, input2 = input.chunk(2, dim=dim)
        input1 = input1.contiguous()
        input2 = input2.contiguous()

        size = input1.numel()
        output = torch.empty_like(input1)

        # a 1-D grid, each program BLOCK_SIZE elements
        grid = lambda META: (cdiv(size, META["BLOCK_SIZE"]),)  # noqa: E731
        glu_forward_kernel[grid](input1, input2, output, size, param, act_func)
        return output


def run(x):
    return GLUAutoGrad.apply(x, -1, "gelu", 0.0)
