"""The matmul split in eight parts along K, summed, then the softmax with the scale folded into one factor."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        k = a.shape[1]
        y = torch.zeros(a.shape[0], b.shape[1], dtype=a.dtype, device=a.device)
        for s in range(0, k, 512):
            y += a[:, s : s + 512] @ b[s : s + 512]
        return torch.softmax(y * (100.0 / k**0.5), dim=1)
