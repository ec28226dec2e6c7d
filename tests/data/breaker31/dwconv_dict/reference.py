import torch

# x (B, C, L) float32 contiguous, weight (C, KW) float32 (KW odd), bias (C,) float32; y = conv1d(x, weight[:, None],
# bias, padding=KW // 2, groups=C), the same shape as x
SHAPES = [{"B": 2, "C": 3, "L": 700, "KW": 3}, {"B": 1, "C": 5, "L": 300, "KW": 7}, {"B": 3, "C": 2, "L": 1000, "KW": 9}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, C=3, L=700, KW=3, device="cpu"):
    g = torch.Generator().manual_seed(B * 1009 + C * 101 + L * 7 + KW)
    x = torch.randn(B, C, L, generator=g)
    w = torch.randn(C, KW, generator=g)
    b = torch.randn(C, generator=g)
    return [x.to(device), w.to(device), b.to(device)]


def reference(x, weight, bias):
    return torch.nn.functional.conv1d(x, weight[:, None, :], bias, padding=weight.shape[1] // 2, groups=x.shape[1])
