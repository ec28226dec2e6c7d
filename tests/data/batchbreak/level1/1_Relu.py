"""ReLU (KernelBench-style)."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(8, 32)]


def get_init_inputs():
    return []
