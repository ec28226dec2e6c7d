"""Reference for the matmul fixture (4096^3, bf16)."""

import torch

SHAPES = [{"m": 4096, "n": 4096, "k": 4096}]
ATOL = 1e-1
RTOL = 1e-2


def get_inputs(m: int = 4096, n: int = 4096, k: int = 4096):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(m, k, generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, generator=g).to(torch.bfloat16)
    return [a, b]


def reference(a, b):
    return a @ b


def flops(a, b) -> int:
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]
