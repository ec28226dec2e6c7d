import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """The sum as a matrix product with a column of ones."""

    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ones = torch.ones(x.shape[self.dim], 1, dtype=x.dtype, device=x.device)
        return torch.matmul(x.transpose(self.dim, -1), ones).transpose(self.dim, -1)
