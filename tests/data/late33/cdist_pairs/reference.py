"""Pairwise distances of n points in 16 dimensions (fresh23's seen case; late33 z100): the output is n x n, so it grows
as the square of the size that moves, where the inputs grow as the size."""

import torch

SHAPES = [{"n": 256, "dim": 16}, {"n": 64, "dim": 16}, {"n": 128, "dim": 16}]


def get_inputs(n, dim):
    return [torch.randn(n, dim)]


def reference(x):
    return torch.cdist(x, x)
