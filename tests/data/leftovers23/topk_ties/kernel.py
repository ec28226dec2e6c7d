"""A top-k whose equal keys come in reverse index order: a stable descending sort of the reversed rows, cut at k."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        n = x.shape[-1]
        values, flipped = torch.sort(x.flip(-1), dim=-1, descending=True, stable=True)
        return values[:, : self.k], n - 1 - flipped[:, : self.k]
