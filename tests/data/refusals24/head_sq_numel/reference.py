"""The sum of squares over each head of x (T, H, D)."""

import torch

SHAPES = [{"T": 8, "H": 4, "D": 128}, {"T": 16, "H": 2, "D": 64}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(T=8, H=4, D=128, device="cpu"):
    g = torch.Generator().manual_seed(T * 1000 + H * 100 + D)
    return [torch.randn(T, H, D, generator=g).to(device)]


def reference(x):
    return (x * x).sum(dim=2)
