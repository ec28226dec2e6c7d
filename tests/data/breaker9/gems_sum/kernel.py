"""FlagGems' whole-tensor sum (``flag_gems/ops/sum.py``): two launches, the first summing ``block_size`` elements a
program into ``mid``, the second summing ``mid``'s ``mid_size`` partials in one block of ``block_mid``. The blocks
follow FlagGems exactly: ``block_size = triton.next_power_of_2(math.ceil(math.sqrt(M)))``,
``mid_size = triton.cdiv(M, block_size)``, ``block_mid = triton.next_power_of_2(mid_size)``, each passed to its kernel
positionally."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel_1(inp, mid, M, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inp_ptrs = inp + offset
    mask = offset < M
    inp_val = tl.load(inp_ptrs, mask=mask, other=0.0).to(tl.float32)
    sum_val = tl.sum(inp_val, axis=0)
    mid_ptr = mid + pid
    tl.store(mid_ptr, sum_val)


@triton.jit
def sum_kernel_2(mid, out, mid_size, BLOCK_MID: tl.constexpr):
    offset = tl.arange(0, BLOCK_MID)
    mid_ptrs = mid + offset
    mask = offset < mid_size
    mid_val = tl.load(mid_ptrs, mask=mask, other=0.0)
    sum_val = tl.sum(mid_val, axis=0)
    tl.store(out, sum_val)


def run(inp):
    inp = inp.contiguous()
    M = inp.numel()
    block_size = triton.next_power_of_2(math.ceil(math.sqrt(M)))
    mid_size = triton.cdiv(M, block_size)
    block_mid = triton.next_power_of_2(mid_size)

    mid = torch.empty((mid_size,), dtype=torch.float32, device=inp.device)
    out = torch.empty([], dtype=torch.float32, device=inp.device)

    sum_kernel_1[(mid_size, 1, 1)](inp, mid, M, block_size)
    sum_kernel_2[(1, 1, 1)](mid, out, mid_size, block_mid)
    return out
