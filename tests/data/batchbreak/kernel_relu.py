"""A correct kernel for reference_relu.py that keeps a functools.wraps helper of its own (no patch of torch)."""

import functools

import torch
from torch import nn


@functools.wraps(torch.relu)
def my_relu(x):
    return torch.clamp_min(x, 0.0)


class ModelNew(nn.Module):
    def forward(self, x):
        return my_relu(x).sum(dim=1, keepdim=True)
