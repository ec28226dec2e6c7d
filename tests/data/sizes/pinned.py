"""A problem that relies on its full size (the forward checks it): no scale keeps it valid."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        if x.shape[1] != 4096:
            raise ValueError(f"this problem needs dim = 4096, got {x.shape[1]}")
        return x * 2


batch_size = 256
dim = 4096


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
