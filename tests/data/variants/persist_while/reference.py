import torch

SHAPES = [{"M": 32, "N": 32, "K": 40}, {"M": 64, "N": 64, "K": 32}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=128, N=96, K=64, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
