import torch

SHAPES = [{"n": 3000, "dtype": "float16"}, {"n": 3000, "dtype": "float32"}]


def get_inputs(n=3000, dtype="float32", device="cpu"):
    return [torch.randn(n, device=device).to(getattr(torch, dtype))]


def reference(x):
    return x * 0.5
