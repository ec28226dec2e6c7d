"""x + y then ReLU as a torch.library.triton_op (torch.compile sees through it): the op launches the kernel
through torch.library.wrap_triton, the grid a lambda of the block."""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_relu(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


@torch.library.triton_op("breaker6::add_relu", mutates_args={})
def add_relu(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    torch.library.wrap_triton(_add_relu)[grid](x, y, out, n, BLOCK=256, num_warps=4)
    return out


def run(x, y):
    return add_relu(x, y)
