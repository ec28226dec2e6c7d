"""triton_op without masks: the op launches whole blocks through torch.library.wrap_triton, ``triton.cdiv(n,
BLOCK)`` programs; sizes are multiples of the block (the original serves every multiple of 256)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_relu(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0))


@torch.library.triton_op("breaker6::add_relu_whole", mutates_args={})
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 256
    torch.library.wrap_triton(_add_relu)[(triton.cdiv(n, BLOCK),)](x, y, out, BLOCK=BLOCK, num_warps=4)
    return out


def run(x, y):
    return add_relu(x, y)
