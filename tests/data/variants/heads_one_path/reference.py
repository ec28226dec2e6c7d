import torch

SHAPES = [{"T": 16, "hidden": 256, "heads": 4}, {"T": 64, "hidden": 512, "heads": 1}]


def get_inputs(T=16, hidden=256, heads=4, device="cpu"):
    g = torch.Generator().manual_seed(T * 7 + hidden)
    return [torch.randn(T, heads, hidden // heads, generator=g).to(device)]


def reference(x):
    return x.pow(2).sum(dim=-1)
