"""Reference for the bank-conflict fixture (4096 x 4096 fp32 transpose)."""

import torch

SHAPES = [{"m": 4096, "n": 4096}]


def get_inputs(m: int = 4096, n: int = 4096):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(m, n, generator=g)]


def reference(x):
    return x.t().contiguous()
