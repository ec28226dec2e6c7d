"""Reference for a row softmax (function form), run on the CPU by the scripted coding-agent tests."""

import torch

SHAPES = [{"rows": 64, "cols": 128}]


def get_inputs(rows: int = 64, cols: int = 128, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(rows, cols, generator=g).to(device)]


def reference(x):
    return torch.softmax(x, dim=-1)


def bytes_moved(x) -> int:
    return 2 * x.numel() * x.element_size()
