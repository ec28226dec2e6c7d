import torch

SHAPES = [{"T": 16, "D": 24}, {"T": 50, "D": 70}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(T=50, D=70, device="cpu"):
    return [torch.rand(T, D, device=device) * 0.9 + 0.05, torch.randn(T, D, device=device)]


def reference(a, b):
    h = torch.empty_like(b)
    acc = torch.zeros_like(b[0])
    for t in range(a.shape[0]):
        acc = a[t] * acc + b[t]
        h[t] = acc
    return h
