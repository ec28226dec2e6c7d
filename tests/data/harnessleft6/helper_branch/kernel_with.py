"""The helper's float32 path, the input's only dtype here: correct."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.sum(x, 1, keepdim=True).clamp(max=30.0)
