"""A valid sort that orders equal keys in reverse index order: a stable sort of the reversed rows, its indices mapped
back (the values the reference's; the indices of ties permuted)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[-1]
        values, flipped = torch.sort(x.flip(-1), dim=-1, stable=True)
        indices = n - 1 - flipped
        return values, indices
