import torch

SHAPES = [{"M": 20, "N": 50}, {"M": 70, "N": 130}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(M=70, N=130, device="cpu"):
    return [torch.randn(M, N, device=device), torch.randn(N, device=device)]


def reference(x, b):
    return torch.relu(x + b)
