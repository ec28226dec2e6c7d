import torch

SHAPES = [{"M": 4, "K": 20}, {"M": 3, "K": 32}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=4, K=20, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, device=device)]


def reference(a, v):
    return a @ v
