"""Angle tables repeated by halves, as HF tables allow; get_inputs seeds its own generator (no seed argument)."""

import torch

SHAPES = [{"rows": 8, "dim": 32}, {"rows": 5, "dim": 64}]


def get_inputs(rows=8, dim=32, device="cpu"):
    torch.manual_seed(0)
    x = torch.randn(rows, dim)
    ang = torch.rand(rows, dim // 2) * 6.28
    ang = torch.cat([ang, ang], dim=1)
    return [x.to(device), ang.cos().to(device), ang.sin().to(device)]


def reference(x, cos, sin):
    h = x.shape[1] // 2
    x1, x2 = x[:, :h], x[:, h:]
    rot = torch.cat([-x2, x1], dim=1)
    return x * cos + rot * sin
