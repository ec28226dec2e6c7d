import torch

SHAPES = [{"M": 20, "K": 128}, {"M": 40, "K": 200}]
ATOL = 1e-3
RTOL = 1e-4


def get_inputs(M=40, K=200, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, device=device)]


def reference(a, x):
    return a @ x
