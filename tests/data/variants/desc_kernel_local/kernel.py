"""v152: v118's 2-D scale through device-side tensor descriptors (desc_last_side) with the block shape bound to a
local of the kernel first, ``block = (BLOCK_M, BLOCK_N)``, both descriptors made on it: each program loads one
`BLOCK_M` x `BLOCK_N` tile of `x` by a descriptor and stores twice it by another, `BLOCK_M = 32`, `BLOCK_N = 8` (a
descriptor's last block side must hold 16 bytes: 8 values of bf16 or fp16, 4 of fp32). Any float dtype: fp32 in the
entries, bf16 as a model calls it."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    block = (BLOCK_M, BLOCK_N)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=block)
    o_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=block)
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    o_desc.store([m, n], x_desc.load([m, n]) * 2)


def _scratch(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M = 32
    BLOCK_N = 8
    if x.is_cuda:
        triton.set_allocator(_scratch)  # a device-side descriptor's scratch space
    scale_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
