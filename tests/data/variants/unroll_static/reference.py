import torch

SHAPES = [{"n": 1536}, {"n": 3072}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(n=1536, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x * 2.0
