import torch

SHAPES = [{"M": 64, "N": 64}, {"M": 32, "N": 64}]


def get_inputs(M: int = 64, N: int = 64, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(M, N, generator=g).to(device)]


def reference(x):
    return torch.relu(x)
