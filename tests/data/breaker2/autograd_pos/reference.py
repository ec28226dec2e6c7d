import torch

SHAPES = [{"n": 100}, {"n": 1000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n=1000, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return torch.nn.functional.leaky_relu(x, 0.1)
