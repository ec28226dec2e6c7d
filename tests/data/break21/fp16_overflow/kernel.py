import torch
from torch import nn

class ModelNew(nn.Module):
    def forward(self, x):
        return x.float().sum(dim=1).half()
