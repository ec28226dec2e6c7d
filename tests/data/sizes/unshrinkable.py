"""A GroupNorm whose every size is pinned: the channels equal num_groups and the rest are below 16."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, channels, num_groups):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels)

    def forward(self, x):
        return self.norm(x)


batch_size = 8
channels = 512
num_groups = 512
length = 4


def get_inputs():
    return [torch.rand(batch_size, channels, length)]


def get_init_inputs():
    return [channels, num_groups]
