import torch

SHAPES = [{"M": 64, "N": 3000}, {"M": 512, "N": 1000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(M=64, N=3000, device="cpu"):
    return [torch.randn(M, N, device=device)]


def reference(x):
    return 2.0 * x
