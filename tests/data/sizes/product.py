"""A matmul whose sizes are written as products (N = 2048 * 2)."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, a, b):
        return a @ b


M = 1024 * 2
N = 2048 * 2
K = 64 * 8


def get_inputs():
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
