import torch

SHAPES = [{"M": 12, "N": 64}, {"M": 40, "N": 300}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(M=40, N=300, device="cpu"):
    return [torch.randn(M, N, device=device), torch.randn(N, device=device), torch.randn(N, device=device),
            torch.randn(M, N, device=device)]


def reference(x, w, b, dy):
    with torch.enable_grad():
        x = x.detach().requires_grad_(True)
        w = w.detach().requires_grad_(True)
        b = b.detach().requires_grad_(True)
        y = torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, eps=1e-5)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), dy)
    return torch.cat([dx.flatten(), dw, db])
