"""Mean squared error of predictions against targets (a scalar)."""

import torch
from torch import nn

batch_size = 8192
dim = 4096


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return torch.mean((pred - target) ** 2)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return []
