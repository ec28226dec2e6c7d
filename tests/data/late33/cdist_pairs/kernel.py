"""Pairwise distances computed without the matrix product (each difference squared and summed): the same
distances, rounded otherwise."""

import torch


def run(x):
    return torch.cdist(x, x, compute_mode="donot_use_mm_for_euclid_dist")
