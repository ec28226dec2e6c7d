import torch

SHAPES = [{"n": 64}]


def get_inputs(n=64):
    return [torch.randn(n)]


def reference(x):
    return x * 2.0
