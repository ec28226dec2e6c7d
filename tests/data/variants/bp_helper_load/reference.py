import torch

SHAPES = [{"M": 40, "K": 64}, {"M": 100, "K": 256}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=100, K=256, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, device=device)]


def reference(x, w):
    return x @ w
