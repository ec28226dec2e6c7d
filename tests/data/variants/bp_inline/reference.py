import torch

SHAPES = [{"M": 20, "N": 24, "K": 64}, {"M": 40, "N": 36, "K": 128}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(M=20, N=24, K=64, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device)]


def reference(a, b):
    return a @ b
