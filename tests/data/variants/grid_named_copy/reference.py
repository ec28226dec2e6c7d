import torch

SHAPES = [{"n": 100}, {"n": 128}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=200, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x * 2.0
