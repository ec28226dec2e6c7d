"""A reference whose noise is drawn in the input's dtype (``torch.rand(..., dtype=x.dtype)``): its float64 run
draws other numbers than its float32 run from the same random state."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1, keepdim=True) + torch.rand(x.shape[0], 1, dtype=x.dtype, device=x.device)


def get_inputs():
    return [torch.rand(4, 64)]


def get_init_inputs():
    return []
