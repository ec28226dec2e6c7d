import torch

SHAPES = [{"M": 64, "N": 32, "K": 32}, {"M": 128, "N": 48, "K": 16}]
ATOL = 5e-2
RTOL = 1e-2


def get_inputs(M=40, N=36, K=64, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
