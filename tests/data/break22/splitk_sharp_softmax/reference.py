"""Level 2: Matmul, then a softmax at temperature 0.01 (the output amplifies the matmul's rounding 100x), at the
sizes the code net reached below the 256 x 4096 x 256 entry (N=9) (break22 b56)."""

import torch
from torch import nn

M = 256
K = 4096
N = 9


class Model(nn.Module):
    def forward(self, a, b):
        return torch.softmax((a @ b) / 0.01 / K**0.5, dim=1)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
