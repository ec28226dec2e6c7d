"""A valid dispatch that orders each expert's tokens last to first: a stable argsort of the reversed rows, its
indices mapped back (review23 r30)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores, expert_ids):
        n = expert_ids.shape[-1]
        return n - 1 - torch.argsort(expert_ids.flip(-1), dim=-1, stable=True)
