import torch

SHAPES = [{"K": 100, "N": 40}, {"K": 300, "N": 90}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(K=300, N=90, device="cpu"):
    return [torch.randn(K, device=device), torch.randn(K, N, device=device)]


def reference(x, w):
    return x @ w
