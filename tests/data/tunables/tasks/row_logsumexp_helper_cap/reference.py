"""Reference for the helper-capped log-sum-exp corpus kernel: two SHAPES entries of different row lengths,
CPU-sized."""

import torch

SHAPES = [{"rows": 2, "cols": 300}, {"rows": 2, "cols": 1000}]


def get_inputs(rows: int = 2, cols: int = 300, device: str = "cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return torch.logsumexp(x.float(), dim=-1)
