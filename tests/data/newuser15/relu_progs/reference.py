import torch

SHAPES = [{"n": 8192}, {"n": 1000}]


def get_inputs(n: int = 8192, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g).to(device)]


def reference(x):
    return torch.relu(x)
