"""Reference for the softmax fixture (8192 x 4096 fp32: 128 MiB in, 128 MiB out)."""

import torch

SHAPES = [{"rows": 8192, "cols": 4096}]


def get_inputs(rows: int = 8192, cols: int = 4096):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(rows, cols, generator=g)]


def reference(x):
    return torch.softmax(x, dim=-1)


def bytes_moved(x) -> int:
    return 2 * x.numel() * x.element_size()


def flops(x) -> int:
    return 5 * x.numel()
