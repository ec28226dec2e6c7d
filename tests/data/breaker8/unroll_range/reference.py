import torch

SHAPES = [{"M": 10, "K": 96, "E": 4}, {"M": 40, "K": 300, "E": 8}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=40, K=300, E=8, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(E, K, device=device)]


def reference(x, w):
    return x @ w.T
