"""Reference for the implicit-blocks corpus kernel (tile sizes not passed at the launch), CPU-sized."""

import torch

SHAPES = [{"rows": 16, "cols": 100}, {"rows": 40, "cols": 300}]


def get_inputs(rows: int = 16, cols: int = 100, device: str = "cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return x * 0.5
