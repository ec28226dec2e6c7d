"""A float64 output near 1e300 (exp of 600 to 610): finite, its squares past any float64 (break21 b46)."""
import torch
from torch import nn
n = 4096

class Model(nn.Module):
    def forward(self, x):
        return torch.exp(x * 10 + 600)   # float64, up to 1e300: the squares overflow

def get_inputs():
    return [torch.rand(n, dtype=torch.float64)]

def get_init_inputs():
    return []
