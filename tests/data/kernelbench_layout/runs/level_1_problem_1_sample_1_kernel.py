import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """A wrong ReLU: it lets negative values through, scaled."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(x > 0, x, 0.5 * x)
