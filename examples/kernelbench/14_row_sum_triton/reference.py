"""Sum over the last dimension of a (batch_size, dim) matrix, keeping the dimension."""

import torch
from torch import nn

batch_size = 8192
dim = 4096


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return []
