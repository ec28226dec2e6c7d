import torch

SHAPES = [{"M": 20, "N": 30}, {"M": 32, "N": 25}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(M=20, N=30, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return x.sum().reshape(1)
