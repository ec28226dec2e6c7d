import torch

SHAPES = [{"M": 16, "K": 256}, {"M": 300, "K": 512}, {"M": 1000, "K": 128}]


def get_inputs(M: int = 16, K: int = 256, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(M, K, generator=g).to(device), torch.randn(K, generator=g).to(device)]


def reference(a, x):
    return a @ x
