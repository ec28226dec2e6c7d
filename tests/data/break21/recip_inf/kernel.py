import torch
from torch import nn

class ModelNew(nn.Module):
    def forward(self, x):
        return torch.reciprocal(x.clamp_min(0))
