"""Rows of a hidden size set at module level (HIDDEN), the row count a SHAPES key."""

import torch

HIDDEN = 1024
SHAPES = [{"rows": 4}, {"rows": 8}]


def get_inputs(rows: int = 4, device: str = "cpu"):
    return [torch.randn(rows, HIDDEN, device=device)]


def reference(x):
    return 2.0 * x
