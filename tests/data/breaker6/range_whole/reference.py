import torch

SHAPES = [{"M": 30, "K": 128}, {"M": 100, "K": 256}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=100, K=200, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, device=device)]


def reference(a, x):
    return a @ x
