import torch

SHAPES = [{"M": 10, "N": 20}, {"M": 40, "N": 70}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(M=40, N=70, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return x.sum(dim=0)
