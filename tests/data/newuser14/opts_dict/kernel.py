import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0.0))


def run(x):
    n = x.numel()
    y = torch.empty_like(x)
    opts = {"num_warps": 2}
    BLOCK = opts["num_warps"] * 32
    relu_kernel[(n // BLOCK,)](x, y, n, BLOCK=BLOCK, **opts)
    return y
