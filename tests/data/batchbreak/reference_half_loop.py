"""A half-precision reference that adds 512 columns one at a time, rounding to fp16 at every step: its own
rounding error is beyond fp16's default tolerance, and its float64 run takes the same path (no branch)."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        acc = x[:, 0]
        for i in range(1, x.shape[1]):
            acc = acc + x[:, i]
        return acc


def get_inputs():
    return [torch.rand(8, 512).half()]


def get_init_inputs():
    return []
