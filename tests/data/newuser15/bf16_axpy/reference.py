import torch

SHAPES = [{"n": 4096}, {"n": 1000}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(n: int = 4096, device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=g).to(torch.bfloat16).to(device)
    y = torch.randn(n, generator=g).to(torch.bfloat16).to(device)
    return [x, y]


def reference(x, y):
    r = (x.float() * 2.0 + y.float())
    return torch.where(r > 0, r, r * 0.5).to(torch.bfloat16)
