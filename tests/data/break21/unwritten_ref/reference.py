"""A reference that leaves half its output unwritten (break21 b46): torch.empty_like filled at even indices only. The
fill below stands for what fresh memory holds in the harness's workers on the CPU (MALLOC_PERTURB_=128: bytes 0x7F),
so that the test sees the same bytes in one process."""

import torch
from torch import nn

n = 1 << 12


class Model(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        out.view(torch.int32).fill_(0x7F7F7F7F)  # what MALLOC_PERTURB_=128 leaves in fresh memory
        out[::2] = x[::2] * 2  # the odd elements are never written
        return out


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []
