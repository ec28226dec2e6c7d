"""A small KernelBench-style problem: ReLU over a (batch_size, dim) matrix."""

import torch
from torch import nn

batch_size = 64
dim = 256


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return []
