import torch

SHAPES = [{"rows": 4, "cols": 40}, {"rows": 4, "cols": 300}]


def get_inputs(rows=4, cols=300, device="cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return x / (x.abs().amax(dim=1, keepdim=True) + 1e-6)
