"""The op is in place and returns nothing (as an optimizer step or a cache update): x is its result."""

import torch

SHAPES = [{"n": 64}, {"n": 300}]


def get_inputs(n=300, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    x.mul_(2.0).add_(1.0)
