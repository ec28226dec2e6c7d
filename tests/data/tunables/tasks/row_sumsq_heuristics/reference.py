"""Reference for the heuristics corpus kernel: two SHAPES entries of different row lengths, CPU-sized."""

import torch

SHAPES = [{"rows": 8, "cols": 100}, {"rows": 8, "cols": 300}]


def get_inputs(rows: int = 8, cols: int = 100, device: str = "cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return x.float().pow(2).sum(-1)
