"""2D max pooling, window 2, stride 2."""

import torch
from torch import nn

batch_size = 32
channels = 64
height = 256
width = 256


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.max_pool2d(x, kernel_size=2, stride=2)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs() -> list[object]:
    return []
