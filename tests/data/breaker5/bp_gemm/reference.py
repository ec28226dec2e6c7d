import torch

SHAPES = [{"M": 40, "N": 72, "K": 24}, {"M": 96, "N": 64, "K": 80}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=96, N=64, K=80, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
