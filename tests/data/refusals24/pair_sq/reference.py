"""Squared distances between n points in a few dimensions (refusals24 u42, u43; late33's cdist as a Triton kernel):
the output is n x n, so it grows as the square of the size that moves, where the input grows as the size."""

import torch

SHAPES = [{"n": 256, "dim": 16}, {"n": 64, "dim": 16}, {"n": 128, "dim": 16}]


def get_inputs(n, dim):
    return [torch.randn(n, dim)]


def reference(x):
    return ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
