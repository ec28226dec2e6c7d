import torch

SHAPES = [{"T": 100, "D": 64}, {"T": 50, "D": 128}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(T=100, D=64, device="cpu"):
    return [torch.randn(T, D, device=device), torch.randn(T, device=device)]


def reference(x, s):
    return x * s[:, None]
