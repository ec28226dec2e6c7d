"""An argsort whose equal keys come in reverse index order: a stable descending sort of the reversed rows."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        n = x.shape[self.dim]
        return n - 1 - torch.argsort(x.flip(self.dim), dim=self.dim, descending=True, stable=True)
