import torch
from torch import nn

class ModelNew(nn.Module):
    def forward(self, x):
        return torch.exp(600 + 10 * x)
