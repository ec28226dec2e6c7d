import torch

# x (B, T, H) float32, dy the gradient of relu(x)^2
SHAPES = [{"B": 2, "T": 5, "H": 1000}, {"B": 1, "T": 16, "H": 130}, {"B": 3, "T": 2, "H": 5000}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=2, T=5, H=1000, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + T * 1009 + H)
    x = torch.randn(B, T, H, generator=g)
    dy = torch.randn(B, T, H, generator=g)
    return [x.to(device), dy.to(device)]


def reference(x, dy):
    x = x.detach().requires_grad_(True)
    y = torch.relu(x) ** 2
    y.backward(dy)
    return y.detach(), x.grad
