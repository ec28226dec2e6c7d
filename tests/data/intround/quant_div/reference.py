import torch

SHAPES = [{"B": 4, "T": 16, "D": 1024}]


def get_inputs(B=4, T=16, D=1024, device="cpu"):
    # a fixed draw: the one that puts a rounding tie between the two orders of the scale (see kernel.py)
    g = torch.Generator().manual_seed(21)
    return [torch.randn(B, T, D, generator=g).to(device)]


def reference(x):
    absmax = x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-10)
    q = x * (127 / absmax)
    q = torch.sign(q) * torch.floor(q.abs() + 0.5)
    return q.to(torch.int8), absmax / 127
