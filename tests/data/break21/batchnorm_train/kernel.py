import torch
from torch import nn

class ModelNew(nn.Module):
    """BatchNorm as KernelBench's Model computes it: a module left in training mode uses the batch's statistics."""
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        mean = x.mean(dim=(0, 2, 3), keepdim=True)
        var = x.var(dim=(0, 2, 3), unbiased=False, keepdim=True)
        w = self.bn.weight.view(1, -1, 1, 1)
        b = self.bn.bias.view(1, -1, 1, 1)
        return (x - mean) / torch.sqrt(var + self.bn.eps) * w + b
