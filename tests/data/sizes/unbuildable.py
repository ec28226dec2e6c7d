"""A problem whose Model cannot be built: its constructor asks for an argument get_init_inputs does not give."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, features, scale):
        super().__init__()
        self.scale = scale * features

    def forward(self, x):
        return x * self.scale


batch_size = 256
features = 4096


def get_inputs():
    return [torch.rand(batch_size, features)]


def get_init_inputs():
    return [features]
