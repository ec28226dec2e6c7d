import torch

SHAPES = [{"N": 1000}, {"N": 65536}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(N=1000, device="cpu"):
    g = torch.Generator().manual_seed(N)
    return [torch.randn(N, generator=g).to(device)]


def reference(x):
    return x * 2.0
