import torch

SHAPES = [{"n": 512, "chunk": 4}, {"n": 256, "chunk": 2}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(n=512, chunk=4, device="cpu"):
    return [torch.randn(n, device=device), chunk]


def reference(x, chunk):
    return x.view(-1, chunk).cumsum(-1).view(-1)
