"""Rows of a hidden size set at module level (HIDDEN), the row count a SHAPES key."""

import torch

HIDDEN = 4096
SHAPES = [{"rows": 2}, {"rows": 4}]
ATOL = 1e-2
RTOL = 1e-4


def get_inputs(rows: int = 2, device: str = "cpu"):
    return [torch.randn(rows, HIDDEN, device=device)]


def reference(x):
    return x.sum(dim=1)
