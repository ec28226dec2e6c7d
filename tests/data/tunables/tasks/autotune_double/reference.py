"""Reference for autotune_double: 2 * x on 1000 fp32 values (CPU-sized)."""

import torch
SHAPES = [{"n": 1000}]
def get_inputs(n=1000, device="cpu"):
    return [torch.randn(n, device=device)]
def reference(x):
    return x * 2
