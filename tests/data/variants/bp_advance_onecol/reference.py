import torch

SHAPES = [{"M": 16, "N": 20, "K": 32}, {"M": 32, "N": 30, "K": 40}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=16, N=20, K=32, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(x, w):
    return x @ w
