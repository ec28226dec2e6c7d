import torch

SHAPES = [{"n": 200}, {"n": 3000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n=3000, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return torch.nn.functional.silu(x)
