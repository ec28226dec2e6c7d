import torch

SHAPES = [dict(n=1024)]


def get_inputs(n=1024):
    return [torch.randn(n), torch.randn(n)]


def reference(a, b):
    return a + b
