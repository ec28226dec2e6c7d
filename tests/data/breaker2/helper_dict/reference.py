import torch

SHAPES = [{"n": 300}, {"n": 5000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(n=5000, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return torch.nn.functional.softplus(x)
