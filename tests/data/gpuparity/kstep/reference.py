import torch

SHAPES = [{"m": 48, "n": 40, "k": 72}]


def get_inputs(m=48, n=40, k=72, device="cpu"):
    return [torch.randn(m, k, device=device), torch.randn(k, n, device=device)]


def reference(a, b):
    return a @ b
