"""Sum of squares of an fp16 vector (the squared L2 norm), as a first Triton kernel, fp32 result.

Each program squares and sums BLOCK_SIZE elements in fp32 and adds its partial sum to the single
output with an atomic add. Correct but slow on purpose: 512 elements per program with 4 warps, so
each thread loads four 16-bit values, and half a million programs queue their atomic adds on one
address. kernelopt tunes the launch keywords (BLOCK_SIZE, num_warps).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def sum_squares_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))


def run(x):
    out = torch.zeros(1, device=x.device, dtype=torch.float32)
    n_elements = x.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    sum_squares_kernel[grid](x, out, n_elements, BLOCK_SIZE=512, num_warps=4)
    return out
