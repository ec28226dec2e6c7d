"""An elementwise add of two fp32 vectors at two sizes (function form)."""

import torch

SHAPES = [{"n": 4096}, {"n": 1024}]


def get_inputs(n: int = 4096):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g), torch.randn(n, generator=g)]


def reference(x, y):
    return x + y
