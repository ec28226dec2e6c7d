import torch

SHAPES = [{"n": 512}, {"n": 2048}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(n=1024, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return 2.0 * x + 1.0
