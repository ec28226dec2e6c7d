"""1 / relu(x): +inf wherever x <= 0 (break21 b48)."""
import torch
from torch import nn
n = 4096

class Model(nn.Module):
    def forward(self, x):
        return 1.0 / torch.relu(x)

def get_inputs():
    return [torch.randn(n)]

def get_init_inputs():
    return []
