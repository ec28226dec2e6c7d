"""A 120 MB CPU problem for the bench worker's memory bound: two 40 MB fp32 inputs, one 40 MB output."""

import torch

SHAPES = [{"n": 10_000_000}]


def get_inputs(n: int = 10_000_000):
    return [torch.randn(n), torch.randn(n)]


def reference(x, y):
    return x * 2.0 + y
