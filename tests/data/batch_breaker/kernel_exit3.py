"""A kernel that ends its process with exit code 3 (the code the worker uses for "no usable device")."""

import os

from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim=1):
        super().__init__()

    def forward(self, x):
        os._exit(3)
