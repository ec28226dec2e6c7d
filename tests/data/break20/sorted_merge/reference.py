import torch

SHAPES = [{"n": 256}]


def get_inputs(n=256, device="cpu"):
    g = torch.Generator().manual_seed(0)
    a = torch.sort(torch.randn(n, generator=g)).values
    b = torch.sort(torch.randn(n // 2, generator=g)).values
    return [a.to(device), b.to(device)]


def reference(a, b):
    return torch.sort(torch.cat([a, b])).values
