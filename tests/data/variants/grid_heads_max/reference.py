import torch

ATOL = 1e-5
RTOL = 1e-5
SHAPES = [{"B": 2, "H": 4, "L": 3000}, {"B": 1, "H": 8, "L": 5000}]


def get_inputs(B=2, H=4, L=3000, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + H * 1009 + L)
    return [torch.randn(B, H, L, generator=g).to(device), torch.randn(H, generator=g).to(device)]


def reference(x, s):
    return x * s[None, :, None]
