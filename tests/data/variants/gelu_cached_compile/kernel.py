"""Bias + GELU over a flattened matrix without masks (``assert n % 128 == 0``), v95's kernel compiled once a dtype
and kept in a module-level cache, the softmax tutorial's form (``_compiled[x.dtype] = kernel.warmup(...,
BLOCK_SIZE=BLOCK_SIZE, grid=(1,))``), then launched from the cache; the tutorial keys its cache by ``BLOCK_SIZE``,
this one by the dtype alone. Triton's interpreter answers ``warmup`` with ``None``: it runs on a GPU only."""

import torch
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(y_ptr, x_ptr, b_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    b = tl.load(b_ptr + offs % n_cols)
    v = x + b
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(y_ptr + offs, 0.5 * v * (1.0 + t))


_compiled = {}


def ceil_div(a, b):
    return (a + b - 1) // b


def run(x, bias):
    y = torch.empty_like(x)
    n = x.numel()
    assert n % 128 == 0, "no mask: the elements must be a multiple of the block"
    BLOCK_SIZE = 128
    if x.dtype not in _compiled:
        _compiled[x.dtype] = bias_gelu_kernel.warmup(
            y, x, bias, n, x.shape[-1], BLOCK_SIZE=BLOCK_SIZE, num_warps=4, grid=(1,)
        )
    _compiled[x.dtype][(ceil_div(n, BLOCK_SIZE), 1, 1)](y, x, bias, n, x.shape[-1], BLOCK_SIZE)
    return y
