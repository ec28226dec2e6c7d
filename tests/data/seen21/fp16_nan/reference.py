"""fp16 row sums, a quarter of the rows near 80000, each minus itself: in the reference's own dtype those rows
overflow to inf and inf - inf is NaN; its float64 run gives 0 there (seen21 u27, break21 b47's seen item)."""

import torch
from torch import nn

rows, cols = 64, 4096


class Model(nn.Module):
    def forward(self, x):
        s = x.sum(dim=1)
        return s - s


def get_inputs():
    x = torch.rand(rows, cols, dtype=torch.float16) * 10
    x[: rows // 4] *= 4  # a quarter of the rows past fp16's range
    return [x]


def get_init_inputs():
    return []
