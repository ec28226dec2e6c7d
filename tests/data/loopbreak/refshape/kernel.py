"""Sums of consecutive groups of 16 elements, any length (the last group short): right at every size."""

import torch


def run(x):
    n = x.numel()
    pad = (-n) % 16
    return torch.nn.functional.pad(x, (0, pad)).view(-1, 16).sum(dim=1)
