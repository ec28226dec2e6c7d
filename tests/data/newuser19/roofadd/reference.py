"""An elementwise add, 1 GiB a tensor in fp32 on a GPU (2**28 elements); a small size on the CPU."""

import torch

SHAPES = [{"n": 1 << 28}]


def get_inputs(n: int = 1 << 28, device: str = "cpu"):
    g = torch.Generator(device=device).manual_seed(0)
    return [torch.randn(n, generator=g, device=device), torch.randn(n, generator=g, device=device)]


def reference(x, y):
    return x + y


def flops(x, y) -> int:
    return x.numel()


def bytes_moved(x, y) -> int:
    return 3 * x.numel() * x.element_size()
