import torch

SHAPES = [{"M": 16, "N": 64}, {"M": 64, "N": 256}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(M=64, N=256, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return 2.0 * x + 1.0
