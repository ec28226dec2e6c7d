"""SiLU or GELU(tanh) by name: the kernel object is taken from a dict, launched through functools.partial."""

import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _silu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=mask)


@triton.jit
def _gelu_tanh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


_ACTIVATIONS = {"silu": _silu, "gelu": _gelu_tanh}


def activate(x, name):
    n = x.numel()
    y = torch.empty_like(x)
    kernel = _ACTIVATIONS[name]
    launch = functools.partial(kernel[(triton.cdiv(n, 512),)], BLOCK=512, num_warps=4)
    launch(x, y, n)
    return y


def run(x):
    return activate(x, "silu")
