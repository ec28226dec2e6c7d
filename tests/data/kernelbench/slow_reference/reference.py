"""A reference that sleeps 2 ms per call, so any honest candidate is clearly faster than it."""

import time

import torch
from torch import nn

batch_size = 32
dim = 128


class Model(nn.Module):
    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(0.002)
        return x * self.scale


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return [2.0]
