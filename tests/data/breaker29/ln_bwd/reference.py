import torch

# x (M, N) float16, w (N,) float16, dy (M, N) float16, mean / rstd (M,) float32 saved by the forward (eps 1e-5);
# returns (dx, dw, db) in float16
SHAPES = [{"M": 37, "N": 100}, {"M": 128, "N": 256}, {"M": 9, "N": 1000}]
ATOL = 2e-2
RTOL = 1e-2


def get_inputs(M=37, N=100, device="cpu"):
    g = torch.Generator().manual_seed(M * 7919 + N)
    x = (torch.randn(M, N, generator=g) * 2 + 0.5).half()
    w = (torch.rand(N, generator=g) + 0.5).half()
    dy = torch.randn(M, N, generator=g).half()
    xf = x.float()
    mean = xf.mean(-1)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False) + 1e-5)
    return [x.to(device), w.to(device), dy.to(device), mean.to(device), rstd.to(device)]


def reference(x, w, dy, mean, rstd):
    xf, wf, dyf = x.double(), w.double(), dy.double()
    xhat = (xf - mean.double()[:, None]) * rstd.double()[:, None]
    g = dyf * wf
    n = x.shape[1]
    dx = (g - xhat * (xhat * g).sum(-1, keepdim=True) / n - g.sum(-1, keepdim=True) / n) * rstd.double()[:, None]
    return dx.to(x.dtype), (dyf * xhat).sum(0).to(w.dtype), dyf.sum(0).to(w.dtype)
