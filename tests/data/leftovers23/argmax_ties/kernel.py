"""An argmax that keeps the last of equal maxima (a parallel reduction may keep any)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        n = x.shape[self.dim]
        return n - 1 - torch.argmax(x.flip(self.dim), dim=self.dim)
