"""KernelBench level 1 form: each row of a batch scaled by a learned weight per column, then ReLU; the output is the
input's size, so every tensor grows as the sizes do (late33 z100's linear form)."""

import torch
from torch import nn

batch_size = 64
features = 1024


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x):
        return torch.relu(x * self.weight)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
