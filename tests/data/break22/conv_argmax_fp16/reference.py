"""Conv2d in fp16, then argmax over the channels: an int64 output of fp16 values, tied in fp16 where float64 tells
them apart (break22 b54)."""

import torch
from torch import nn

batch_size = 2
in_channels = 16
out_channels = 256
height = width = 32
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size).half()

    def forward(self, x):
        return torch.argmax(self.conv(x), dim=1)


def get_inputs():
    return [(torch.randn(batch_size, in_channels, height, width) * 100).half()]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
