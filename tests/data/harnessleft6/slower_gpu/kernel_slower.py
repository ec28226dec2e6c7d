"""The reference's result through three passes over memory instead of one: correct, about 3x slower."""

import torch


def run(x):
    y = x * 1.0
    y = y + x
    return torch.mul(y, 1.0)
