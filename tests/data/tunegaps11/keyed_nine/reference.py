import torch

SHAPES = [{"n": 1000}, {"n": 4000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n=1000, device="cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g).to(device)]


def reference(x):
    return x * 2.0
