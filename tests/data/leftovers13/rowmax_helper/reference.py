import torch

SHAPES = [{"m": 8, "n_cols": 200}, {"m": 4, "n_cols": 1000}]


def get_inputs(m=8, n_cols=200, device="cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(m, n_cols, generator=g).to(device)]


def reference(x):
    return x.max(dim=1).values
