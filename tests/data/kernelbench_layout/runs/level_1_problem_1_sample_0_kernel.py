import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """ReLU written another way: clamp at zero."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp_min(x, 0.0)
