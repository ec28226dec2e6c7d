"""ReLU written with a zero tensor of its own (three passes over memory where one reads and one writes): V0."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(x > 0, x, torch.zeros_like(x))
