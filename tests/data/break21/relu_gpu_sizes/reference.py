"""ReLU at a GPU size (400 MB of input): a CPU run scales it (--size-scale)."""
import torch
from torch import nn
batch_size = 4096
dim = 25600


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
