"""Chained (height = width = 128) and unpacked (D, H, W = 16, 32, 32) sizes; a 3x3 max pool."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size)

    def forward(self, x, y):
        return self.pool(x), y * 2


batch_size = 64
channels = 32
height = width = 128
D, H, W = 16, 32, 32
kernel_size = 3


def get_inputs():
    return [torch.rand(batch_size, channels, height, width), torch.rand(batch_size, D, H, W)]


def get_init_inputs():
    return [kernel_size]
