"""KernelBench-form candidate."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.clamp(x, min=0) * self.scale
