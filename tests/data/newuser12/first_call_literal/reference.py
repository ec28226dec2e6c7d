import torch

SHAPES = [{"M": 16, "N": 300}, {"M": 8, "N": 1000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M: int = 16, N: int = 300, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(M, N, generator=g).to(device)]


def reference(x):
    return x.sum(dim=0)
