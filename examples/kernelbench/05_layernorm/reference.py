"""LayerNorm over the last dimension, with a learned scale and shift."""

import torch
from torch import nn

batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, dim)]


def get_init_inputs() -> list[object]:
    return [dim]
