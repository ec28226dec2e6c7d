"""Reference for the row-softmax corpus kernel (settings from an imported module beside it), CPU-sized. The task
folder holds row_settings.py too: copy it beside kernel.py."""

import torch

SHAPES = [{"rows": 4, "cols": 100}, {"rows": 4, "cols": 300}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(rows: int = 4, cols: int = 100, device: str = "cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return torch.softmax(x, dim=-1)
