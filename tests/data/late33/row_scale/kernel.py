"""The scaled rows by one clamp."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return (x * self.weight).clamp_min(0.0)
