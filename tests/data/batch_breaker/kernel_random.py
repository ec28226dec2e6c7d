"""A kernel that draws its noise the way the random reference does: correct under the same random state."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        noise = torch.rand(x.shape[0], 1).to(x.dtype)
        return torch.sum(x, 1, keepdim=True) + noise
