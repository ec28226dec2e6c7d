"""A GEMM then GroupNorm: out_features must stay a multiple of num_groups; groups 16 and a 16-wide pool
are settings, never sizes."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, pool_kernel_size):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(num_groups, out_features)
        self.pool = nn.AvgPool1d(pool_kernel_size)

    def forward(self, x):
        y = self.norm(self.gemm(x))
        return self.pool(y.unsqueeze(1)).squeeze(1)


batch_size = 1024
in_features = 8192
out_features = 8192
num_groups = 64
pool_kernel_size = 16


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, pool_kernel_size]
