"""A float32 matrix product of two n x n matrices (function form), at 64 and 48."""

import torch

SHAPES = [{"n": 64}, {"n": 48}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(n: int = 64):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)]


def reference(a, b):
    return a @ b
