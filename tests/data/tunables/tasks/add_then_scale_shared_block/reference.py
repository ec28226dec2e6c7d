"""Reference for the two-pass corpus kernel (one block computed inline at two launches), CPU-sized."""

import torch

SHAPES = [{"n": 300}, {"n": 2000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(n: int = 300, device: str = "cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return (x + 0.5) * 3.0
