import torch
import torch.nn.functional as F

# x, dy, dresidual [M, N] fp16; weight, bias [N] fp32
SHAPES = [{"M": 37, "N": 300}, {"M": 5, "N": 1024}, {"M": 100, "N": 65}]
ATOL = 3e-2
RTOL = 3e-2


def get_inputs(M=37, N=300, device="cpu"):
    g = torch.Generator().manual_seed(M * 10000 + N)
    x = torch.randn(M, N, generator=g).half()
    w = torch.rand(N, generator=g) + 0.5
    b = torch.randn(N, generator=g) * 0.1
    dy = torch.randn(M, N, generator=g).half()
    dres = torch.randn(M, N, generator=g).half()
    return [t.to(device) for t in (x, w, b, dy, dres)]


def reference(x, weight, bias, dy, dresidual):
    eps = 1e-5
    xf = x.float().requires_grad_(True)
    w = weight.detach().float().clone().requires_grad_(True)
    b = bias.detach().float().clone().requires_grad_(True)
    F.layer_norm(xf, (x.shape[1],), w, b, eps).backward(dy.float())
    dx = (xf.grad + dresidual.float()).to(x.dtype)
    dw, db = w.grad.clone(), b.grad.clone()
    xr = x.float().requires_grad_(True)
    wr = weight.detach().float().clone().requires_grad_(True)
    (xr * torch.rsqrt(xr.square().mean(-1, keepdim=True) + eps) * wr).backward(dy.float())
    return dx, dw, db, xr.grad.to(x.dtype), wr.grad
