import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """A sample for a problem the level folder does not have."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x
