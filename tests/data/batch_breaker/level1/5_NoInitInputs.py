"""A KernelBench problem file without get_init_inputs: the problem's defect, not a kernel's."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(1)


def get_inputs():
    return [torch.rand(4, 64)]
