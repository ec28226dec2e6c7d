"""Reference for a tiny elementwise add (function form), used by tests on the CPU."""

import torch

SHAPES = [{"n": 4096}, {"n": 1000}]


def get_inputs(n: int = 4096, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=g).to(device)
    y = torch.randn(n, generator=g).to(device)
    return [x, y]


def reference(x, y):
    return x + y


def flops(x, y) -> int:
    return x.numel()


def bytes_moved(x, y) -> int:
    return 3 * x.numel() * x.element_size()
