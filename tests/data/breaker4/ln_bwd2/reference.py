import torch

SHAPES = [{"M": 10, "N": 40}, {"M": 37, "N": 100}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=37, N=100, device="cpu"):
    x = torch.randn(M, N, device=device)
    mean = x.mean(dim=1)
    rstd = torch.rsqrt(x.var(dim=1, unbiased=False) + 1e-5)
    return [torch.randn(M, N, device=device), x, torch.randn(N, device=device), mean, rstd]


def reference(dy, x, w, mean, rstd):
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).mean(dim=1, keepdim=True)
    c2 = wdy.mean(dim=1, keepdim=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return torch.cat([dx.flatten(), (dy * xhat).sum(0), dy.sum(0)])
