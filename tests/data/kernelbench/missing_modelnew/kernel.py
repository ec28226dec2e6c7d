"""Forgot to define ModelNew: the batch reports this folder on its own row."""

import torch


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)
