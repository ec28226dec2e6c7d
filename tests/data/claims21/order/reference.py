"""The scale's reference; its SHAPES list the larger entry first (the interpreter times the smaller first)."""

import torch

SHAPES = [{"n": 4096}, {"n": 1000}]


def get_inputs(n: int = 4096):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, generator=g)]


def reference(x):
    return x * 2.0
