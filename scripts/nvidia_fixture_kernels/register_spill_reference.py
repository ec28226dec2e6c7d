"""Reference for the register-spill fixture (2048 x 8192 fp32)."""

import torch

SHAPES = [{"rows": 2048, "cols": 8192}]


def get_inputs(rows: int = 2048, cols: int = 8192):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(rows, cols, generator=g)]


def reference(x):
    return torch.softmax(x, dim=-1)
