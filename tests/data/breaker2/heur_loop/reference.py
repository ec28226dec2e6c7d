import torch

SHAPES = [{"M": 2, "N": 128}, {"M": 3, "N": 256}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(M=3, N=256, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return x.sum(dim=1)
