"""Torch baseline: functional conv2d on the same weight."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, cin: int, cout: int, k: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.conv2d(x, self.conv.weight, padding=self.conv.padding)
