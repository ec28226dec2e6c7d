import torch

# x [B, T, V] fp32 (softmax over the last dimension), dy the gradient of the output
SHAPES = [{"B": 2, "T": 5, "V": 1000}, {"B": 1, "T": 16, "V": 130}, {"B": 3, "T": 2, "V": 5000}]
ATOL = 1e-5
RTOL = 1e-4


def get_inputs(B=2, T=5, V=1000, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000000 + T * 10000 + V)
    x = torch.randn(B, T, V, generator=g) * 2
    dy = torch.randn(B, T, V, generator=g)
    return [x.to(device), dy.to(device)]


def reference(x, dy):
    x = x.detach().requires_grad_(True)
    y = torch.softmax(x, dim=-1)
    y.backward(dy)
    return y.detach(), x.grad
