"""A small KernelBench-style problem: ReLU over a vector of n elements."""

import torch
from torch import nn

n = 256


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(n)]


def get_init_inputs() -> list[object]:
    return []
