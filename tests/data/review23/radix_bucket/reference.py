"""An argsort of each row given its keys' top radix digit beside them (the bucket a radix sort's first pass reads):
two inputs the reference's indices order, the bucket with many equal values (review23 r30)."""

import torch
from torch import nn

batch_size = 8
dim = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bucket, keys):
        return torch.argsort(keys, dim=-1)


def get_inputs():
    keys = torch.rand(batch_size, dim)
    return [torch.floor(keys * 16), keys]


def get_init_inputs():
    return []
