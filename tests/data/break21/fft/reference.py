"""An FFT along the last dimension: a complex64 output (break21 b49)."""
import torch
from torch import nn
batch_size = 16
n = 256

class Model(nn.Module):
    def forward(self, x):
        return torch.fft.fft(x, dim=-1)

def get_inputs():
    return [torch.randn(batch_size, n)]

def get_init_inputs():
    return []
