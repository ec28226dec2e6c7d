"""The convolution as unfold and a float32 matmul, rounded to fp16 as the reference's output is, then argmax."""

import torch.nn.functional as F
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size).half()

    def forward(self, x):
        n, _, h, w = x.shape
        k = self.conv.kernel_size[0]
        cols = F.unfold(x.float(), k)
        weight = self.conv.weight.float().view(self.conv.out_channels, -1)
        y = (weight @ cols + self.conv.bias.float().view(1, -1, 1)).half()
        return y.argmax(dim=1).view(n, h - k + 1, w - k + 1)
