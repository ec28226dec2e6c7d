"""Torch baseline: mean and variance by hand; the same parameters as the reference (nn.LayerNorm)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return (x - mean) * torch.rsqrt(var + self.norm.eps) * self.norm.weight + self.norm.bias
