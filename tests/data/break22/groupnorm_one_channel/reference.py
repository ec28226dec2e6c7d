"""Level 2 (Gemm, GroupNorm, Swish, Multiply, Swish) at as many channels as groups: each group one channel, so the
group norm is zero in exact arithmetic and its output is rounding noise (1e-14 in float64, 1e-5 in float32), the
sizes a net of the 256-channel problem reaches (break22 b55)."""

import torch
from torch import nn

batch_size = 4
in_features = 8
out_features = 16
num_groups = 16
multiply_weight_shape = (out_features,)


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, multiply_weight_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.multiply_weight = nn.Parameter(torch.randn(multiply_weight_shape))

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        x = x * torch.sigmoid(x)
        x = x * self.multiply_weight
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, multiply_weight_shape]
