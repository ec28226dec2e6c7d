"""A kernel that leaves the helper's clamp out: off by up to 2 on sums near 32."""

from torch import nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.sum(dim=1, keepdim=True)
