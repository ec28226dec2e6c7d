"""A kernel.py whose import never returns (an idle wait: no CPU spent): break22 b50."""

import threading

import torch
from torch import nn

threading.Event().wait()


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp_min(x, 0.0)
