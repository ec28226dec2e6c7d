"""2 * x + y of two fp32 vectors of 4096 elements (function form)."""

import torch

SHAPES = [{"n": 4096}]


def get_inputs(n: int = 4096):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g), torch.randn(n, generator=g)]


def reference(x, y):
    return 2 * x + y
