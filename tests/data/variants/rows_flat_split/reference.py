import torch

SHAPES = [{"M": 64, "N": 96}, {"M": 200, "N": 40}]


def get_inputs(M: int = 64, N: int = 96, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(M, N, generator=g).to(device), torch.randn(N, generator=g).to(device)]


def reference(x, w):
    return x * w
