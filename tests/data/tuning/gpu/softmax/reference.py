"""Row softmax, fp32, 16384 x 8192: 512 MiB input, 512 MiB output (the issue-22 row problem)."""

import torch

SHAPES = [{"M": 16384, "N": 8192}]


def get_inputs(M: int = 16384, N: int = 8192, device: str = "cuda"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return torch.softmax(x, dim=-1)
