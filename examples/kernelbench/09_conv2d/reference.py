"""2D convolution, 3x3 kernel, padding 1, no bias."""

import torch
from torch import nn

batch_size = 16
in_channels = 64
out_channels = 128
height = 128
width = 128
kernel_size = 3


class Model(nn.Module):
    def __init__(self, cin: int, cout: int, k: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs() -> list[object]:
    return [in_channels, out_channels, kernel_size]
