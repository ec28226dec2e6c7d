"""ReLU over a large vector (memory-bound elementwise)."""

import torch
from torch import nn

n = 16777216


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(n)]


def get_init_inputs() -> list[object]:
    return []
