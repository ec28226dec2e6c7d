"""The DFT as a matmul with its complex exponentials (another rounding than the FFT)."""
import math
import torch
from torch import nn

class ModelNew(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        k = torch.arange(n, dtype=torch.float64)
        angle = -2 * math.pi * torch.outer(k, k) / n
        w = torch.polar(torch.ones_like(angle), angle).to(torch.complex64)
        return x.to(torch.complex64) @ w.T
