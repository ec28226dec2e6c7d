import torch
import torch.nn as nn
import torch.kernelopt_no_such_submodule  # the package is there, the module is not: found only on import


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x)
