"""Kills the Ray worker that runs it (and the kernelopt process between them) the first time only,
as a node running out of memory would; the retry then passes. The marker lives beside the workspaces."""

import os
import signal
from pathlib import Path

import torch
from torch import nn

MARKER = Path(__file__).resolve().parent.parent / "killed_once.marker"


def _grandparent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def kill_the_ray_worker() -> None:
    parent = os.getppid()  # the `kernelopt validate` process
    os.kill(_grandparent(parent), signal.SIGKILL)  # the Ray worker
    os.kill(parent, signal.SIGKILL)
    os._exit(1)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not MARKER.exists():
            MARKER.write_text("killed\n")
            kill_the_ray_worker()
        return torch.relu(x)
