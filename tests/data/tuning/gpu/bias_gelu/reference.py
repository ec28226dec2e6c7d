"""Bias + GELU, fp32, 16384 x 16384: 1 GiB input, 1 GiB output (the issue-22 elementwise problem)."""

import torch

SHAPES = [{"M": 16384, "N": 16384}]


def get_inputs(M: int = 16384, N: int = 16384, device: str = "cuda"):
    return [torch.randn(M, N, device=device), torch.randn(N, device=device)]


def reference(x, bias):
    return torch.nn.functional.gelu(x + bias)
