"""Reference for the SwiGLU corpus kernel: silu(gate) * up, small enough for TRITON_INTERPRET=1."""

import torch

SHAPES = [{"n": 3000}]


def get_inputs(n: int = 3000, device: str = "cpu"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(gate, up):
    return torch.nn.functional.silu(gate.float()) * up.float()
