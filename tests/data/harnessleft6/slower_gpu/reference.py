"""A memory-bound op on the GPU: 64 Mi floats scaled (about 0.1 ms on an H200)."""

import torch


def get_inputs(device="cpu"):
    return [torch.rand(1 << 26, device=device)]


def reference(x):
    return x * 2.0
