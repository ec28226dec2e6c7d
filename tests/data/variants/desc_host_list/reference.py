import torch

SHAPES = [{"M": 64, "N": 96}, {"M": 256, "N": 40}]


def get_inputs(M: int = 64, N: int = 96, dtype: str = "float32", device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return [torch.randn(M, N, generator=g).to(getattr(torch, dtype)).to(device)]


def reference(x):
    return 2 * x
