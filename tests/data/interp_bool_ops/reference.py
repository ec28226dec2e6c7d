import torch

SHAPES = [{"N": 37}, {"N": 5}]
ATOL = 0.0
RTOL = 0.0


def get_inputs(N=37, device="cpu"):
    g = torch.Generator().manual_seed(N)
    return [torch.randn(N, generator=g).to(device)]


def reference(x):
    n = x.numel()
    i = torch.arange(n, device=x.device)
    keep = (i >= n // 4) & (i < n - n // 4)
    return torch.where(keep, x * 2.0, x)
