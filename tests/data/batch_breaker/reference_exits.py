"""A reference whose forward ends the process (os._exit): the problem's defect, never the kernel's."""

import os

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        os._exit(7)


def get_inputs():
    return [torch.rand(4, 8)]


def get_init_inputs():
    return []
