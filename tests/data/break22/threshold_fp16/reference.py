"""Level 2 in fp16: Linear, then a threshold at 1.0: a bool output of fp16 values, rounded across the threshold
where the float64 run is not (break22 b54)."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 256).half()

    def forward(self, x):
        return self.lin(x) > 1.0


def get_inputs():
    return [(torch.randn(256, 256) * 4).half()]


def get_init_inputs():
    return []
