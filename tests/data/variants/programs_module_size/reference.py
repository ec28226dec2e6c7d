import torch

N = 32768


def get_inputs(device="cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(N, generator=g).to(device)]


def reference(x):
    return x * 2.0
