"""Reference for the marked-constant scaling corpus kernel, CPU-sized."""

import torch

SHAPES = [{"n": 3000}]


def get_inputs(n: int = 3000, device: str = "cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x * 2.0
