import torch
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack


@cute.kernel
def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    bdim, _, _ = cute.arch.block_dim()
    i = bidx * bdim + tidx
    if i < cute.size(gA):
        gC[i] = gA[i] + gB[i]


@cute.jit
def add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    threads = 256
    n = cute.size(mA)
    add_kernel(mA, mB, mC).launch(grid=((n + threads - 1) // threads, 1, 1), block=(threads, 1, 1))


_compiled = {}


def run(a, b):
    c = torch.empty_like(a)
    args = (from_dlpack(a), from_dlpack(b), from_dlpack(c))
    key = a.shape
    if key not in _compiled:
        _compiled[key] = cute.compile(add, *args)
    _compiled[key](*args)
    return c
