import torch

SHAPES = [{"N": 40, "K": 256}, {"N": 64, "K": 512}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(N=64, K=512, device="cpu"):
    return [torch.randn(K, device=device), torch.randn(K, N, device=device)]


def reference(x, w):
    return x @ w
