import torch

SHAPES = [{"n": 4096, "chunk": 64}, {"n": 2048, "chunk": 32}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(n=4096, chunk=64, device="cpu"):
    return [torch.randn(n, device=device), chunk]


def reference(x, chunk):
    return x.view(-1, chunk).cumsum(-1).view(-1)
