"""Returns the right row sums but leaves a wrong average (the weights swapped)."""

from torch import nn


class ModelNew(nn.Module):
    def forward(self, x, avg):
        out = (avg * 0.9 + x * 0.1).sum(dim=1)
        avg.mul_(0.1).add_(x, alpha=0.9)
        return out
