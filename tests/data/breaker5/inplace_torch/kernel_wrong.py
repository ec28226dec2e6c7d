"""Returns the right values but leaves its input unlike the reference leaves it (x <- 0)."""

import torch


def run(x):
    out = torch.empty_like(x)
    torch.add(x * 2.0, 1.0, out=out)
    x.zero_()
    return out
