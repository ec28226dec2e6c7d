"""Square matrix multiplication, fp32 (no TF32)."""

import torch
from torch import nn

size = 4096


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(size, size), torch.randn(size, size)]


def get_init_inputs() -> list[object]:
    return []
