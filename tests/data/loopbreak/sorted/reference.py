"""Boundaries sorted by get_inputs, which seeds its own generator and takes no seed: every seed gets the same
values, and the harness permutes seeds 1+ along the first dimension, which unsorts the boundaries. They are a column
(n, 1): a sorted vector beside other data keeps its order in seeds 1+ since breaker20's e4, a column is permuted."""

import torch

SHAPES = [{"n": 100, "m": 64}, {"n": 37, "m": 200}]


def get_inputs(n=100, m=64, device="cpu"):
    g = torch.Generator().manual_seed(0)
    b = torch.sort(torch.randn(n, generator=g)).values
    x = torch.randn(m, generator=g)
    return [b[:, None].to(device), x.to(device)]


def reference(b, x):
    return (b.reshape(1, -1) < x[:, None]).sum(dim=1)
