"""Kills its own process with SIGSEGV, as a kernel with a bad pointer would."""

import os
import signal

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGSEGV)
        return x
