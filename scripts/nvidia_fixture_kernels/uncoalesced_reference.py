"""Reference for the uncoalesced fixture (2M outputs gathered with stride 16 from 32M floats)."""

import torch

SHAPES = [{"n": 1 << 21}]


def get_inputs(n: int = 1 << 21):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n * 16, generator=g)]


def reference(x):
    return x[::16] * 2.0
