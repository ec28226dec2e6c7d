"""Adversarial: one NaN in the output."""

import torch


def run(x, y):
    out = x + y
    out[7] = torch.nan
    return out
