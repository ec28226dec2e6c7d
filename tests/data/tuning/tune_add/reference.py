"""An elementwise add of two fp32 vectors of 1024 elements (function form)."""

import torch

SHAPES = [{"n": 1024}]


def get_inputs(n: int = 1024):
    return [torch.randn(n), torch.randn(n)]


def reference(x, y):
    return x + y
