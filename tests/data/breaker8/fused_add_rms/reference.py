import torch

SHAPES = [{"B": 2, "T": 3, "D": 100}, {"B": 1, "T": 4, "D": 700}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=1, T=4, D=700, device="cpu"):
    x = torch.randn(B, T, D, device=device)
    residual = torch.randn(B, T, D, device=device)
    weight = torch.rand(D, device=device) + 0.5
    return [x, residual, weight]


def reference(x, residual, weight):
    s = x + residual
    y = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + 1e-6) * weight
    return y, s
