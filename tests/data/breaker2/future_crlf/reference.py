import torch

SHAPES = [{"n": 256}, {"n": 1000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(n=1000, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return torch.nn.functional.gelu(x, approximate="tanh")
