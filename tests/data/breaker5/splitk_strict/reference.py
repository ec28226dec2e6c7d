import torch

SHAPES = [{"M": 24, "N": 40, "K": 96}, {"M": 64, "N": 48, "K": 200}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=64, N=48, K=200, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
