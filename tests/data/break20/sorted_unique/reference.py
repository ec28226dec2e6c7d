import torch

SHAPES = [{"n": 256}]


def get_inputs(n=256, device="cpu"):
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, n // 4, (n,), generator=g).float()
    return [torch.sort(x).values.to(device)]


def reference(x):
    return torch.unique(x)
