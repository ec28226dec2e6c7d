"""Writes every element: twice the even ones, zero the odd ones."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        out[::2] = x[::2] * 2
        return out
