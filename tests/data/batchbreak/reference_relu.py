"""A small KernelBench-style problem: ReLU through torch.nn.functional, then a sum through torch."""

import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sum(F.relu(x), dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
