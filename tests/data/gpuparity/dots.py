"""Kernels on either side of the rules a GPU compile enforces and Triton's interpreter does not (tests/test_gpu_parity.py):
a tl.dot's K (16, 32 for 8-bit operands) and num_warps (a power of two)."""

import torch
import triton
import triton.language as tl


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


@triton.autotune(configs=[triton.Config({}, num_warps=3)], key=[])
@triton.jit
def dot_tile_tuned(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


def operands(k: int, dtype: torch.dtype, device: str = "cpu", m: int = 16, n: int = 16) -> list[torch.Tensor]:
    """A (m, k) and a (k, n) operand of ``dtype`` and the output they fill (int32 for int8 operands, else fp32)."""
    gen = torch.Generator().manual_seed(k)
    if dtype == torch.int8:
        a = torch.randint(-4, 4, (m, k), generator=gen, dtype=torch.int8)
        b = torch.randint(-4, 4, (k, n), generator=gen, dtype=torch.int8)
        c = torch.empty(m, n, dtype=torch.int32)
    else:
        a = torch.randn(m, k, generator=gen).to(dtype)
        b = torch.randn(k, n, generator=gen).to(dtype)
        c = torch.empty(m, n, dtype=torch.float32)
    return [a.to(device), b.to(device), c.to(device)]


def launch(k: int, dtype: torch.dtype, device: str = "cpu", num_warps: int = 4) -> float:
    """Run ``dot_tile`` on (16, k) x (k, 16) and return its largest error against torch (int: exact)."""
    a, b, c = operands(k, dtype, device)
    dot_tile[(1,)](a, b, c, M=16, N=16, K=k, num_warps=num_warps)
    want = a.to(torch.float64) @ b.to(torch.float64)
    return float((c.to(torch.float64) - want).abs().max())
