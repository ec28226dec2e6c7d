import torch

SHAPES = [{"n": 64}, {"n": 2048}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=64, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x * 2
