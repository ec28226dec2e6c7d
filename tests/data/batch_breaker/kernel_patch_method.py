"""A kernel that replaces Tensor.sum in ModelNew(): the same cheat, later and through the method."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim
        plain = torch.Tensor.sum
        torch.Tensor.sum = lambda x, *a, **k: plain(x, *a, **k) * 0.5
        torch.sum = lambda x, *a, **k: plain(x, *a, **k) * 0.5

    def forward(self, x):
        return x.sum(self.dim, keepdim=True)
