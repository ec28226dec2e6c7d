import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0))


def run(x):
    n = x.numel()
    out = torch.empty_like(x)
    nw = 2
    threads = nw * 32
    BLOCK = threads
    relu_kernel[(n // BLOCK,)](x, out, BLOCK=BLOCK, num_warps=nw)
    return out
