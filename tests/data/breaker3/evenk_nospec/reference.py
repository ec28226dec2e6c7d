import torch

SHAPES = [{"M": 20, "K": 64}, {"M": 70, "K": 100}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=70, K=100, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, device=device)]


def reference(a, x):
    return a @ x
