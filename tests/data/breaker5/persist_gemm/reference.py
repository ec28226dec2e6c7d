import torch

SHAPES = [{"M": 48, "N": 80, "K": 40}, {"M": 128, "N": 96, "K": 64}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=128, N=96, K=64, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
