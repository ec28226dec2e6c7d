"""Reference of the small vector add (1M fp32)."""

import torch

SHAPES = [{"n": 1 << 20}]


def get_inputs(n: int = 1 << 20):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g), torch.randn(n, generator=g)]


def reference(x, y):
    return x + y
