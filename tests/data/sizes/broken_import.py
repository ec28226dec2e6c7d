"""A problem file that does not import: it reads a constant it never defines."""

import torch
from torch import nn

batch_size = 256
dim = SIZE_FROM_NOWHERE * 2  # noqa: F821 - the defect under test


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
