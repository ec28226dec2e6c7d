"""A 60 MB CPU problem for the bench worker's memory bound: two 20 MB fp32 inputs, one 20 MB output."""

import torch

SHAPES = [{"n": 5_000_000}]


def get_inputs(n: int = 5_000_000):
    return [torch.randn(n), torch.randn(n)]


def reference(x, y):
    return x * 2.0 + y
