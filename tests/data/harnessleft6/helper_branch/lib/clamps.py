"""The same branch in a package of the problem's folder."""

import torch


def clamp_sums(s):
    if s.dtype == torch.float32:
        return s.clamp(max=30.0)
    return s
