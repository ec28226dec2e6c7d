"""Each batch item a module-level FEATURES = (heads, hidden) of rows, the batch a SHAPES key."""

import torch

FEATURES = (2, 1024)
SHAPES = [{"batch": 2}, {"batch": 4}]


def get_inputs(batch: int = 2, device: str = "cpu"):
    return [torch.randn(batch, *FEATURES, device=device)]


def reference(x):
    return 2.0 * x
