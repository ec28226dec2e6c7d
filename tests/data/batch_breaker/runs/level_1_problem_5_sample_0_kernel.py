"""A correct kernel for both breaker problems' shapes."""

from torch import nn


class ModelNew(nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.sum(dim=self.dim, keepdim=True)
