"""Kills the Ray worker that runs it every time: after the one retry the batch records it as failed."""

import os
import signal
from pathlib import Path

import torch
from torch import nn


def _grandparent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parent = os.getppid()
        os.kill(_grandparent(parent), signal.SIGKILL)
        os.kill(parent, signal.SIGKILL)
        os._exit(1)
        return x
