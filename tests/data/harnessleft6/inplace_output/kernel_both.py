"""Updates the average in place and returns its row sums, as the reference: correct."""

from torch import nn


class ModelNew(nn.Module):
    def forward(self, x, avg):
        avg.copy_(avg * 0.9 + x * 0.1)
        return avg.sum(dim=1)
