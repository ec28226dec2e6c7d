"""ReLU over a (batch_size, dim) matrix at a GPU size: 32768 x 8192 fp32, 1 GiB a tensor (break21's GPU phase)."""

import torch
from torch import nn

batch_size = 32768
dim = 8192


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return []
