import torch

# x, g, dy (T, D) float32, weight, bias (D,) float32; y = layer_norm(x) * weight + bias, times g * sigmoid(g), and
# the gradients of x, g, weight and bias for dy. D <= 512 takes the forward's BT kernel, D > 512 its row kernel
SHAPES = [{"T": 100, "D": 256}, {"T": 33, "D": 130}, {"T": 21, "D": 1000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(T=100, D=256, device="cpu"):
    gen = torch.Generator().manual_seed(T * 1009 + D)
    x = torch.randn(T, D, generator=gen)
    g = torch.randn(T, D, generator=gen)
    weight = torch.rand(D, generator=gen) + 0.5
    bias = torch.randn(D, generator=gen)
    dy = torch.randn(T, D, generator=gen)
    return [t.to(device) for t in (x, g, weight, bias, dy)]


def reference(x, g, weight, bias, dy):
    x, g, weight, bias = (t.detach().double().requires_grad_(True) for t in (x, g, weight, bias))
    y = torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, 1e-5) * g * torch.sigmoid(g)
    y.backward(dy.double())
    return tuple(t.float() for t in (y.detach(), x.grad, g.grad, weight.grad, bias.grad))
