"""A router's softmax over E experts, each token one program, its experts in one block of BLOCK_E lanes masked
`e < E` (E a power of two of at most 8: `assert E & (E - 1) == 0 and E <= 8`, so no odd count of experts)."""

import torch
import triton
import triton.language as tl


@triton.jit
def router_kernel(x_ptr, y_ptr, E, BLOCK_E: tl.constexpr):
    t = tl.program_id(0)
    e = tl.arange(0, BLOCK_E)
    x = tl.load(x_ptr + t * E + e, mask=e < E, other=float("-inf"))
    m = tl.max(x, axis=0)
    p = tl.exp(x - m)
    tl.store(y_ptr + t * E + e, p / tl.sum(p, axis=0), mask=e < E)


def run(x):
    T, E = x.shape
    assert E & (E - 1) == 0 and E <= 8
    y = torch.empty_like(x)
    router_kernel[(T,)](x, y, E, BLOCK_E=8)
    return y
