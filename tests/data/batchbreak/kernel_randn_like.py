"""reference_randn_like.py's computation, written another way: correct under the same random state."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        noise = torch.randn_like(x)
        return torch.sum(x + noise * 0.1, 1, keepdim=True)
