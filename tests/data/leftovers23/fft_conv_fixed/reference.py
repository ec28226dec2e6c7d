"""KernelBench level 2 form: a long depthwise 1-D convolution (a kernel a quarter of the signal), then tanh
(break22's FFT convolution, smaller; leftovers23 l31)."""

import torch
import torch.nn.functional as F
from torch import nn

batch = 2
channels = 4
length = 1024
klen = 257


class Model(nn.Module):
    def __init__(self, channels, klen):
        super().__init__()
        self.w = nn.Parameter(torch.randn(channels, 1, klen) / klen**0.5)

    def forward(self, x):
        return torch.tanh(F.conv1d(x, self.w, groups=x.shape[1]))


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels, klen]
