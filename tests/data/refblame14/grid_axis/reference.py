import torch

SHAPES = [{"n": 1000}]


def get_inputs(n=1000, device="cpu"):
    return [torch.randn(n, generator=torch.Generator().manual_seed(n)).to(device)]


def reference(x):
    return x.clone()
