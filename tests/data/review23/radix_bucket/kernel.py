"""A WRONG kernel: a radix sort's first pass alone, each row ordered by its bucket, the keys within it left in place
(review23 r30)."""

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bucket, keys):
        return torch.argsort(bucket, dim=-1, stable=True)
