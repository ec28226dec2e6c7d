import torch

SHAPES = [{"M": 10, "N": 12, "K": 20}, {"M": 40, "N": 36, "K": 50}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=40, N=36, K=50, device="cpu"):
    return [torch.randn(M, K, device=device), torch.randn(K, N, device=device), torch.randn(N, device=device)]


def reference(a, b, bias):
    return torch.nn.functional.leaky_relu(a @ b + bias, 0.01)
