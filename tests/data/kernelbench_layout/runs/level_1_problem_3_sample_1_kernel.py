import os
import signal

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Kills its own process with SIGSEGV, as a kernel with a bad pointer would."""

    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGSEGV)
        return torch.sum(x, dim=self.dim, keepdim=True)
