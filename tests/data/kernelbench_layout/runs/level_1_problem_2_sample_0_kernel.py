import torch
import torch.nn as nn


class Model(nn.Module):
    """The generator copied the reference's class name: no ModelNew here."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 1.0 / (1.0 + torch.exp(-x))
