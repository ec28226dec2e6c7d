import torch

SHAPES = [{"n": 100}, {"n": 1000}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=1000, device="cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(x, y):
    return x + y
