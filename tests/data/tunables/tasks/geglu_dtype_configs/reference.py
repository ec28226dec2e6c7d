"""Reference for the GEGLU corpus kernel (float32 inputs: the float32 entry of its launch table), CPU-sized."""

import torch

SHAPES = [{"n": 1000}]


def get_inputs(n: int = 1000, device: str = "cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(gate, up):
    return torch.nn.functional.gelu(gate) * up
