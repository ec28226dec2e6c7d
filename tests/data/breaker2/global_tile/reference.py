import torch

SHAPES = [{"n": 128}, {"n": 512}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=512, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x + 1.0
