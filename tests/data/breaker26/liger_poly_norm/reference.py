import torch

# x (B, T, H) float32, w (3,), b () float32, dy the gradient of the output; y = w0 * norm(x^3) + w1 * norm(x^2) +
# w2 * norm(x) + b, norm(u) = u / sqrt(mean(u^2) + 1e-6); returns y and the gradients of x, w and b
SHAPES = [{"B": 2, "T": 5, "H": 1000}, {"B": 1, "T": 16, "H": 130}, {"B": 3, "T": 2, "H": 5000}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, T=5, H=1000, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + T * 1009 + H)
    x = torch.randn(B, T, H, generator=g)
    w = torch.tensor([0.5, -0.75, 1.25])
    b = torch.tensor(0.1)  # a scalar, as Liger's module holds it
    dy = torch.randn(B, T, H, generator=g)
    return [t.to(device) for t in (x, w, b, dy)]


def reference(x, w, b, dy):
    x = x.detach().double().requires_grad_(True)
    w = w.detach().double().requires_grad_(True)
    b = b.detach().double().requires_grad_(True)

    def norm(u):
        return u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + 1e-6)

    y = w[0] * norm(x**3) + w[1] * norm(x**2) + w[2] * norm(x) + b
    y.backward(dy.double())
    return y.detach().float(), x.grad.float(), w.grad.float(), b.grad.float()
