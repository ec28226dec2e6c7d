"""Batched matrix multiplication of (batch, m, k) by (batch, k, n)."""

import torch
from torch import nn

batch = 64
m = 512
k = 256
n = 512


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch, m, k), torch.randn(batch, k, n)]


def get_init_inputs() -> list[object]:
    return []
