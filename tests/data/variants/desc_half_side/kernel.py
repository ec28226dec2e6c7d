"""v118's 2-D scale through device-side tensor descriptors with each tile stored in two halves (an epilogue split
into subtiles, as Triton's persistent matmul tutorial's `EPILOGUE_SUBTILE`): the descriptors' block `BLOCK_M` x
`BLOCK_N // 2`, each program loading and storing the two halves of its `BLOCK_M` x `BLOCK_N` tile, `BLOCK_M = 32`,
`BLOCK_N = 16` (a half of 8: a descriptor's last block side must hold 16 bytes, 8 values of bf16, 4 of fp32), the
grid in tiles rounded up. Any float dtype: fp32 in the entries, bf16 as a model calls it."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N // 2])
    o_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N // 2])
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    o_desc.store([m, n], x_desc.load([m, n]) * 2)
    o_desc.store([m, n + BLOCK_N // 2], x_desc.load([m, n + BLOCK_N // 2]) * 2)


def _scratch(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M = 32
    BLOCK_N = 16
    if x.is_cuda:
        triton.set_allocator(_scratch)  # a device-side descriptor's scratch space
    scale_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
