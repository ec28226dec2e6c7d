"""A reference whose output is NaN everywhere: a kernel returning NaN would pass a check against it."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1, keepdim=True) * float("nan")


def get_inputs():
    return [torch.rand(4, 64)]


def get_init_inputs():
    return []
