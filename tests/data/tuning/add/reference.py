"""The tuning tests' problem: an elementwise add of two fp32 vectors (function form)."""

import torch

SHAPES = [{"n": 1 << 14}]


def get_inputs(n: int = 1 << 14):
    return [torch.randn(n), torch.randn(n)]


def reference(x, y):
    return x + y
