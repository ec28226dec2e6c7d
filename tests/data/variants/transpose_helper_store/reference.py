import torch

SHAPES = [{"M": 20, "N": 32}, {"M": 45, "N": 64}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(M=45, N=64, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return x.t().contiguous()
